# cdens from R beside the R peers in Debian, on the same splits in one run: KCDE (cde_kcde) and
# auto (cde_auto) against ks (kernel density estimates, their conditional form) and ranger
# (quantile regression forests, quantreg = TRUE). For each set and split: the test NLL of y in
# its own units (where the method gives a density), the mean pinball loss at 0.1, 0.5 and 0.9,
# the coverage and width of the central 90 % interval, fit and predict seconds; then the mean and
# standard error over the splits. Every method runs on one thread (the machine runs other work).
#
# Sets: the UCI regression tables with the standard splits of Hernandez-Lobato & Adams (2015)
# from ../shared/data/uci (without it they are left out, said so), and Old Faithful (R's
# faithful, eruptions given waiting) over random halves.
#
# ks: f(y|x) = f(x, y) / f(x), both ks::kde with the diagonal plug-in bandwidth of the joint
# sample (Hpi.diag) and its x block for the marginal, so that the ratio is a proper conditional
# density (the Gaussian product kernels integrate y out); its quantiles are those of the mixture
# the ratio is (sum of w_i(x) N(y; y_i, h_y^2)). ks's plug-in selectors take minutes per fit
# beyond seven dimensions (x and y), so ks runs on the sets of at most six inputs.
# R's np (npcdensbw, npcdens) is not in Debian: it is not run here (docs/benchmarks.md).
#
#   Rscript bench/peers/r/run.R                          # default: 5 splits per set
#   Rscript bench/peers/r/run.R --splits 20 --sets yacht,boston
#   Rscript bench/peers/r/run.R --quick                  # 2 splits of yacht and faithful

arguments <- commandArgs(trailingOnly = TRUE)
option_value <- function(name, default) {
  at <- match(name, arguments)
  if (is.na(at)) default else arguments[at + 1L]
}
quick <- "--quick" %in% arguments
splits <- as.integer(option_value("--splits", if (quick) 2 else 5))
sets <- strsplit(option_value("--sets", if (quick) "yacht,faithful" else
  "faithful,yacht,boston,energy,concrete"), ",")[[1]]
methods <- strsplit(option_value("--methods", "kcde,auto,ks,ranger"), ",")[[1]]
out <- option_value("--csv", "")

suppressPackageStartupMessages({
  library(cdens)
  library(ks)
  library(ranger)
})
options(cdens.fit_warnings = FALSE)

here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
uci <- normalizePath(file.path(here, "..", "..", "..", "..", "shared", "data", "uci"),
                     mustWork = FALSE)
levels <- c(0.1, 0.5, 0.9)
interval <- c(0.05, 0.95)
KS_MAX_DIMENSIONS <- 7L

# A set as list(data = frame of x and y, x = names, y = name, splits = list of (train, test)).
load_set <- function(name) {
  if (name == "faithful") {
    set.seed(1)
    halves <- lapply(seq_len(splits), function(k) {
      train <- sort(sample(nrow(datasets::faithful), 136))
      list(train = train, test = setdiff(seq_len(nrow(datasets::faithful)), train))
    })
    return(list(data = datasets::faithful, x = "waiting", y = "eruptions", splits = halves))
  }
  csv <- file.path(uci, paste0(name, ".csv"))
  if (!file.exists(csv)) return(NULL)
  frame <- utils::read.csv(csv)
  description <- jsonlite_free_splits(file.path(uci, paste0(name, "_splits.json")))
  count <- min(splits, length(description$train))
  list(data = frame, x = description$x, y = description$y,
       splits = lapply(seq_len(count), function(k) {
         list(train = description$train[[k]] + 1L, test = description$test[[k]] + 1L)
       }))
}

# The split file's fields without a JSON package: {"x": [names], "y": name, "train": [[...]],
# "test": [[...]]}.
jsonlite_free_splits <- function(path) {
  text <- paste(readLines(path, warn = FALSE), collapse = "")
  field <- function(name) {
    sub(sprintf('.*"%s":\\s*', name), "", text)
  }
  names_in <- function(part) regmatches(part, gregexpr('"[^"]*"', part))[[1]]
  x_part <- sub("\\].*", "", field("x"))
  y_part <- sub(",.*", "", field("y"))
  lists <- function(name) {
    part <- field(name)
    part <- substr(part, 1L, regexpr("\\]\\]", part) + 1L)
    inner <- regmatches(part, gregexpr("\\[[0-9, ]*\\]", part))[[1]]
    lapply(inner, function(item) as.integer(strsplit(gsub("[][ ]", "", item), ",")[[1]]))
  }
  list(x = gsub('"', "", names_in(x_part)), y = gsub('"', "", names_in(y_part)),
       train = lists("train"), test = lists("test"))
}

pinball <- function(y, quantiles, taus) {
  mean(vapply(seq_along(taus), function(k) {
    residual <- y - quantiles[, k]
    mean(residual * (taus[k] - (residual < 0)))
  }, 0))
}

# Each method: fit(train) returns a model, answer(model, test) a list of nll (NULL where the
# method gives no density), quantiles at `levels` and the interval at `interval`.
fitters <- list(
  kcde = list(
    fit = function(train, formula) cde_kcde(formula, data = train, seed = 0, n_jobs = 1),
    answer = function(model, test) cdens_answers(model, test)),
  auto = list(
    fit = function(train, formula) cde_auto(formula, data = train, seed = 0, n_jobs = 1),
    answer = function(model, test) cdens_answers(model, test)),
  ks = list(
    fit = function(train, formula) ks_fit(train, formula),
    answer = function(model, test) ks_answers(model, test)),
  ranger = list(
    fit = function(train, formula) {
      # A seed of 0 would draw one from R's generator (ranger's convention).
      ranger::ranger(formula, data = train, quantreg = TRUE, num.threads = 1, seed = 1)
    },
    answer = function(model, test) {
      values <- predict(model, test, type = "quantiles", quantiles = c(levels, interval))$predictions
      list(nll = NULL, quantiles = values[, 1:3, drop = FALSE], interval = values[, 4:5])
    }))

cdens_answers <- function(model, test) {
  list(nll = -predict(model, test, type = "log_density"),
       quantiles = predict(model, test, type = "quantile", probs = levels),
       interval = predict(model, test, type = "quantile", probs = interval))
}

ks_fit <- function(train, formula) {
  variables <- all.vars(formula)
  y <- variables[1L]
  x <- if (identical(variables[-1L], ".")) setdiff(names(train), y) else variables[-1L]
  joint <- as.matrix(train[c(x, y)])
  bandwidths <- diag(ks::Hpi.diag(joint))
  list(x = x, y = y, joint = joint, bandwidths = bandwidths)
}

ks_answers <- function(model, test) {
  d <- length(model$x)
  points <- as.matrix(test[c(model$x, model$y)])
  joint <- ks::kde(model$joint, H = diag(model$bandwidths, d + 1L), eval.points = points,
                   binned = FALSE)$estimate
  marginal <- ks::kde(model$joint[, seq_len(d), drop = FALSE],
                      H = diag(model$bandwidths[seq_len(d)], d), binned = FALSE,
                      eval.points = points[, seq_len(d), drop = FALSE])$estimate
  # The mixture the ratio is: weights of the training rows at each test x, y's kernel width.
  log_weights <- sapply(seq_len(nrow(model$joint)), function(i) {
    rowSums(stats::dnorm(sweep(points[, seq_len(d), drop = FALSE], 2,
                               model$joint[i, seq_len(d)]),
                         sd = rep(sqrt(model$bandwidths[seq_len(d)]), each = nrow(points)),
                         log = TRUE))
  })
  log_weights <- matrix(log_weights, nrow(points))
  weights <- exp(log_weights - apply(log_weights, 1L, max))
  weights <- weights / rowSums(weights)
  centres <- model$joint[, d + 1L]
  width <- sqrt(model$bandwidths[d + 1L])
  quantile_of <- function(p) {
    vapply(seq_len(nrow(points)), function(j) {
      cdf <- function(value) sum(weights[j, ] * stats::pnorm(value, centres, width)) - p
      stats::uniroot(cdf, range(centres) + c(-10, 10) * width, tol = 1e-10)$root
    }, 0)
  }
  list(nll = -log(joint / marginal), quantiles = sapply(levels, quantile_of),
       interval = sapply(interval, quantile_of))
}

results <- list()
for (set_name in sets) {
  set <- load_set(set_name)
  if (is.null(set)) {
    cat(sprintf("%s: not found in %s; left out\n", set_name, uci))
    next
  }
  formula <- stats::as.formula(paste(set$y, "~", paste(set$x, collapse = " + ")))
  for (method in methods) {
    if (method == "ks" && length(set$x) + 1L > KS_MAX_DIMENSIONS) next
    for (k in seq_along(set$splits)) {
      split <- set$splits[[k]]
      train <- set$data[split$train, c(set$x, set$y)]
      test <- set$data[split$test, c(set$x, set$y)]
      started <- proc.time()[["elapsed"]]
      model <- fitters[[method]]$fit(train, formula)
      fitted <- proc.time()[["elapsed"]]
      answers <- fitters[[method]]$answer(model, test)
      answered <- proc.time()[["elapsed"]]
      y <- test[[set$y]]
      results[[length(results) + 1L]] <- data.frame(
        set = set_name, method = method, split = k,
        nll = if (is.null(answers$nll)) NA_real_ else mean(answers$nll),
        pinball = pinball(y, answers$quantiles, levels),
        coverage = mean(y >= answers$interval[, 1L] & y <= answers$interval[, 2L]),
        width = mean(answers$interval[, 2L] - answers$interval[, 1L]),
        fit_seconds = fitted - started, predict_seconds = answered - fitted)
      cat(sprintf("%s %s split %d: fit %.2f s\n", set_name, method, k, fitted - started),
          file = stderr())
    }
  }
}
runs <- do.call(rbind, results)
if (nzchar(out)) utils::write.csv(runs, out, row.names = FALSE)

summary_cell <- function(values, digits) {
  values <- values[!is.na(values)]
  if (!length(values)) return("—")
  if (length(values) == 1L) return(formatC(values, digits = digits, format = "f"))
  sprintf("%s ± %s", formatC(mean(values), digits = digits, format = "f"),
          formatC(stats::sd(values) / sqrt(length(values)), digits = digits, format = "f"))
}

cat("| set | method | test NLL | pinball (0.1, 0.5, 0.9) | 90 % coverage | 90 % width |",
    "fit s | predict s |\n")
cat("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
for (set_name in unique(runs$set)) {
  for (method in unique(runs$method[runs$set == set_name])) {
    rows <- runs[runs$set == set_name & runs$method == method, ]
    cat(sprintf("| %s (%d splits) | %s | %s | %s | %s | %s | %s | %s |\n", set_name, nrow(rows),
                method, summary_cell(rows$nll, 3), summary_cell(rows$pinball, 4),
                summary_cell(rows$coverage, 3), summary_cell(rows$width, 3),
                summary_cell(rows$fit_seconds, 2), summary_cell(rows$predict_seconds, 3)))
  }
}

if (quick) {
  # The quick run's checks: every method answered; on each set KCDE's test NLL is within 0.05 of
  # ks's or better (the same kernels, bandwidths by leave-one-out likelihood against a plug-in).
  stopifnot(all(is.finite(runs$pinball)), all(runs$coverage > 0.5))
  for (set_name in unique(runs$set)) {
    nll <- tapply(runs$nll[runs$set == set_name], runs$method[runs$set == set_name], mean)
    if (all(c("kcde", "ks") %in% names(nll))) stopifnot(nll[["kcde"]] <= nll[["ks"]] + 0.05)
  }
}

# Judging fitted models on held-out data, by the engine of `cdens evaluate` and `cdens compare`
# (and Python's cdens.metrics): the CRPS per pair, every score with the calibration of the PIT and
# HPD values, and the comparison of models on the same pairs (paired standard errors, shares of
# pairs won). A density model p(x) is scored on its points.

# The engine's rows of a model for newdata: (x, y) pairs of a conditional model, points of a
# density (its y NULL); rows with a missing value are left out.
scored_rows <- function(model, newdata, y) {
  if (!inherits(model, "cdens_model")) stop_cdens("model must be a fit of cdens")
  if (model$family == "density") {
    rows <- query_rows(model, newdata)
    return(list(x = rows$x[stats::complete.cases(rows$x), , drop = FALSE], y = NULL))
  }
  rows <- query_rows(model, newdata, outputs = TRUE, y = y)
  kept <- stats::complete.cases(rows$x, rows$y)
  list(x = rows$x[kept, , drop = FALSE], y = rows$y[kept, , drop = FALSE])
}

crps <- function(model, newdata = NULL, y = NULL) {
  rows <- scored_rows(model, newdata, y)
  .Call(C_cdens_crps, model$model, rows$x, rows$y)
}

evaluate <- function(model, newdata = NULL, y = NULL, pinball_levels = c(0.1, 0.5, 0.9),
                     interval_levels = c(0.5, 0.9), bins = 10, draws = 1000, seed = 0,
                     scores = NULL, verbose = FALSE) {
  evaluation_of(model, newdata, y, evaluation_settings(pinball_levels, interval_levels, bins,
                                                       draws, seed, scores), verbose, "")$report
}

evaluation_settings <- function(pinball_levels, interval_levels, bins, draws, seed, scores) {
  list(pinball_levels = as.numeric(pinball_levels), interval_levels = as.numeric(interval_levels),
       bins = bins, draws = draws, seed = seed,
       scores = if (is.null(scores)) character() else as.character(scores))
}

# The engine's evaluation (handle, for a comparison) and its report: a list of class
# cdens_evaluation whose scores are a data frame (name, mean, standard error) with each score's
# values per pair in `values`.
evaluation_of <- function(model, newdata, y, settings, verbose, label) {
  rows <- scored_rows(model, newdata, y)
  evaluation <- .Call(C_cdens_evaluate, model$model, rows$x, rows$y, settings, isTRUE(verbose),
                      label)
  report <- evaluation$report
  scores <- report$scores
  report$values <- stats::setNames(lapply(scores, `[[`, "values"),
                                   vapply(scores, `[[`, "", "name"))
  report$scores <- data.frame(
    score = vapply(scores, `[[`, "", "name"), mean = vapply(scores, `[[`, 0, "mean"),
    standard_error = vapply(scores, `[[`, 0, "standard_error"),
    proper = vapply(scores, `[[`, TRUE, "proper"),
    higher_is_better = vapply(scores, `[[`, TRUE, "higher_is_better"))
  class(report) <- "cdens_evaluation"
  list(handle = evaluation$handle, report = report)
}

print.cdens_evaluation <- function(x, ...) {
  cat(sprintf("cdens evaluation on %d pairs\n", x$n))
  print(x$scores, row.names = FALSE)
  for (name in names(x$calibration)) {
    check <- x$calibration[[name]]
    cat(sprintf("%s uniformity: Kolmogorov-Smirnov D = %.4g, p = %.4g\n", name, check$statistic,
                check$p_value))
  }
  invisible(x)
}

compare <- function(..., newdata = NULL, y = NULL, names = NULL,
                    pinball_levels = c(0.1, 0.5, 0.9), interval_levels = c(0.5, 0.9),
                    draws = 1000, seed = 0, scores = NULL, verbose = FALSE) {
  models <- list(...)
  if (length(models) == 1L && !inherits(models[[1L]], "cdens_model")) models <- models[[1L]]
  if (length(models) < 2L) stop_cdens("a comparison needs at least two models")
  if (is.null(names)) names <- names(models)
  if (is.null(names) || any(!nzchar(names))) {
    names <- vapply(models, function(model) model$method, "")
  }
  if (anyDuplicated(names)) names <- sprintf("%s (%d)", names, seq_along(names))
  settings <- evaluation_settings(pinball_levels, interval_levels, 10, draws, seed, scores)
  handles <- lapply(seq_along(models), function(k) {
    evaluation_of(models[[k]], newdata, y, settings, verbose,
                  sprintf("compare, model %d of %d (%s): ", k, length(models), names[k]))$handle
  })
  report <- .Call(C_cdens_compare, handles, names)
  dimnames(report$means) <- dimnames(report$standard_errors) <-
    dimnames(report$best_shares) <- list(unlist(report$scores), names)
  structure(report, class = "cdens_comparison")
}

print.cdens_comparison <- function(x, ...) {
  cat(sprintf("cdens comparison of %s on %d pairs\n", paste(x$models, collapse = ", "), x$n))
  cat("\nMeans:\n")
  print(x$means)
  cat("\nShares of pairs won:\n")
  print(x$best_shares)
  invisible(x)
}

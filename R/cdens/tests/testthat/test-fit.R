# Fits from R: every registered method fits and answers; the formula and the matrix interfaces,
# factors and ordered factors, missing values and bad input.

test_that("every registered method fits from R and answers its queries", {
  for (entry in cdens_methods()) {
    model <- cheap_fit(entry)
    rows <- faithful_rows()[1:5, ]
    if (entry$family == "density") {
      expect_s3_class(model, "cdens_kde")
      values <- predict(model, rows)
      draws <- simulate(model, 3, seed = 1)
      expect_identical(dim(draws), c(3L, 2L))
    } else {
      expect_s3_class(model, "cdens_cde")
      values <- predict(model, rows)
      quantiles <- predict(model, rows, type = "quantile", probs = c(0.25, 0.75))
      expect_true(all(quantiles[, 1L] <= quantiles[, 2L]), label = entry$name)
      expect_length(predict(model, rows, type = "mean"), 5L)
    }
    expect_length(values, 5L)
    expect_true(all(is.finite(values)), label = entry$name)
  }
})

test_that("the formula and the matrix interface fit the same model", {
  data <- faithful_rows()
  by_formula <- cde_lscde(eruptions ~ waiting, data = data, sigma = c(0.3, 1), seed = 3)
  by_matrix <- cde_lscde(data["waiting"], data$eruptions, sigma = c(0.3, 1), seed = 3)
  by_front_door <- cde(data["waiting"], data$eruptions, method = "lscde", sigma = c(0.3, 1),
                       seed = 3)
  expected <- predict(by_formula, type = "log_density")
  expect_identical(predict(by_matrix, data["waiting"], y = data$eruptions), expected)
  expect_identical(predict(by_front_door, data["waiting"], y = data$eruptions), expected)
  expect_identical(by_matrix$x_names, "waiting")
  expect_identical(by_matrix$y_names, "y")
})

test_that("a factor column equals its integer-coded fit (levels sorted), kept by its labels", {
  data <- mixed_data()
  by_factor <- cde_kcde(y ~ x + colour, data = data, seed = 1)
  # The codes of the sorted labels, declared discrete: blue 0, green 1, red 2.
  coded <- transform(data, colour = match(as.character(colour), c("blue", "green", "red")) - 1)
  by_codes <- cde_kcde(y ~ x + colour, data = coded, discrete = "colour", seed = 1)
  expect_identical(by_factor$labels$colour, c("blue", "green", "red"))
  expect_identical(unname(by_factor$report$hyperparameters),
                   unname(by_codes$report$hyperparameters))
  expect_identical(predict(by_factor, data), predict(by_codes, coded))
  # A factor with its levels in another order is the same model.
  releveled <- transform(data, colour = factor(colour, levels = c("green", "blue", "red")))
  expect_identical(predict(cde_kcde(y ~ x + colour, data = releveled, seed = 1), data),
                   predict(by_factor, data))
})

test_that("an ordered factor equals its integer-coded fit declared ordered, in its levels' order", {
  data <- mixed_data()
  by_factor <- cde_kcde(y ~ x + size, data = data, seed = 1)
  coded <- transform(data, size = as.integer(size) - 1)
  by_codes <- cde_kcde(y ~ x + size, data = coded, ordered = "size", seed = 1)
  expect_identical(by_factor$labels$size, c("S", "M", "L"))
  expect_identical(predict(by_factor, data), predict(by_codes, coded))
  # By position too (from 1: x, size, then y).
  expect_identical(predict(cde_kcde(y ~ x + size, data = coded, ordered = 2, seed = 1), coded),
                   predict(by_codes, coded))
})

test_that("a factor output is a discrete y with a probability mass", {
  data <- mixed_data()
  model <- cde_kcde(size ~ x + y, data = data, seed = 1)
  masses <- sapply(c("S", "M", "L"), function(level) {
    predict(model, transform(data[1:4, ], size = factor(level, levels = levels(data$size))),
            type = "density")
  })
  expect_equal(rowSums(masses), rep(1, 4), tolerance = 1e-12)
  most_probable <- predict(model, data[1:4, ], type = "mean")
  expect_s3_class(most_probable, "ordered")
  expect_identical(as.character(most_probable), colnames(masses)[max.col(masses, "first")])
  expect_s3_class(simulate(model, 2, seed = 1, newdata = data[1:3, ])$sim_1, "factor")
})

test_that("a method that smooths every column refuses a factor, naming it and who takes it", {
  data <- mixed_data()
  expect_error(cde_lscde(y ~ x + colour, data = data),
               paste0("cde_lscde\\(\\) smooths every column as continuous, and 'colour' is ",
                      "discrete.*cde_auto\\(\\) or cde_kcde\\(\\)"),
               class = "cdens_invalid_argument")
})

test_that("na.action: rows with missing values are left out (na.omit) or refused (na.fail)", {
  data <- faithful_rows()
  holey <- data
  holey$waiting[c(2, 5)] <- NA
  left_out <- cde_lscde(eruptions ~ waiting, data = holey, sigma = 0.5, regularization = 0.1,
                        seed = 2)
  complete <- cde_lscde(eruptions ~ waiting, data = data[-c(2, 5), ], sigma = 0.5,
                        regularization = 0.1, seed = 2)
  expect_identical(predict(left_out, data), predict(complete, data))
  expect_identical(as.integer(left_out$na.action), c(2L, 5L))
  expect_error(cde_lscde(eruptions ~ waiting, data = holey, na.action = na.fail), "missing")
  by_matrix <- cde_lscde(holey["waiting"], holey$eruptions, sigma = 0.5, regularization = 0.1,
                         seed = 2)
  expect_identical(predict(by_matrix, data["waiting"], y = data$eruptions),
                   predict(complete, data))
  # A query's row with a missing input answers NA in place.
  answers <- predict(complete, holey[1:6, ], type = "mean")
  expect_identical(is.na(answers), c(FALSE, TRUE, FALSE, FALSE, TRUE, FALSE))
})

test_that("subset and weights are read as lm() reads them", {
  data <- faithful_rows()
  data$w <- rep(1:2, length.out = nrow(data))
  subset_fit <- cde_kcde(eruptions ~ waiting, data = data, subset = waiting > 60, seed = 1)
  kept <- data[data$waiting > 60, ]
  expect_identical(predict(subset_fit, kept),
                   predict(cde_kcde(eruptions ~ waiting, data = kept, seed = 1), kept))
  # The rows left out lie beyond the fitted inputs: their queries say so.
  expect_warning(predict(subset_fit, data), "22 of 68 query rows lie outside the inputs",
                 class = "cdens_extrapolation_warning")
  # An integer weight counts as the row repeated (the library merges repeated rows into weights).
  weighted <- cde_kcde(eruptions ~ waiting, data = data, weights = w, seed = 1)
  doubled <- data[rep(seq_len(nrow(data)), data$w), ]
  expect_equal(predict(weighted, data),
               predict(cde_kcde(eruptions ~ waiting, data = doubled, seed = 1), data),
               tolerance = 1e-12)
})

test_that("bad input is an R error that names the argument", {
  data <- faithful_rows()
  expect_error(cde_lscde(eruptions ~ waiting, data = data, n_centers = 0), "n_centers",
               class = "cdens_invalid_argument")
  expect_error(cde_lscde(eruptions ~ waiting, data = data, sigma = -1), "sigma",
               class = "cdens_invalid_argument")
  expect_error(cde_lscde(eruptions ~ waiting, data = data, cv_loss = "l1"), "cv_loss",
               class = "cdens_invalid_argument")
  expect_error(cde(eruptions ~ waiting, data = data, method = "lscde", sigmas = 1),
               "no argument 'sigmas'", class = "cdens_invalid_argument")
  expect_error(cde(eruptions ~ waiting, data = data, method = "nonsense"), "method must be one of")
  expect_error(cde_lscde(eruptions ~ waiting, data = data, n_jobs = 1e6), "n_jobs",
               class = "cdens_invalid_argument")
  expect_error(cde(eruptions ~ waiting, data = data, method = "nwcde", weights = waiting),
               "cde_kcde", class = "cdens_invalid_argument")
  expect_error(kde_gmm(faithful, n_components = 1, max_iter = -2), "max_iter",
               class = "cdens_invalid_argument")
  constant <- transform(data, eruptions = 1)
  expect_error(cde_kcde(eruptions ~ waiting, data = constant), class = "cdens_data_error")
})

test_that("the fit's warnings are R warnings of class cdens_fit_warning", {
  saved <- options(cdens.fit_warnings = TRUE)
  on.exit(options(saved))
  messages <- character()
  withCallingHandlers(
    cde_lscde(eruptions ~ waiting, data = faithful, sigma = c(0.01, 0.02), regularization = 0.1),
    cdens_fit_warning = function(warning) {
      messages <<- c(messages, conditionMessage(warning))
      invokeRestart("muffleWarning")
    })
  expect_match(messages, "the chosen sigma lies at the edge of its grid", all = FALSE)
  expect_match(messages, "16 of the 272 rows repeat an earlier row", all = FALSE)
})

test_that("options(cdens.fit_warnings = FALSE) keeps the warnings in the report only", {
  model <- expect_silent(cde_lscde(eruptions ~ waiting, data = faithful, sigma = c(0.01, 0.02),
                                   regularization = 0.1))
  expect_match(summary(model)$warnings, "edge of its grid", all = FALSE)
})

test_that("the library's advice is spelt in R: functions and arguments as R writes them", {
  saved <- options(cdens.fit_warnings = TRUE)
  on.exit(options(saved))
  messages <- character()
  withCallingHandlers(
    cde_kcde(y ~ x + colour + size, data = mixed_data(), seed = 1),
    cdens_fit_warning = function(warning) {
      messages <<- c(messages, conditionMessage(warning))
      invokeRestart("muffleWarning")
    })
  expect_match(messages, "try cde_linear(), or trend = \"linear\"", fixed = TRUE, all = FALSE)
  expect_error(cde_nwcde(eruptions ~ waiting, data = faithful, weights = waiting),
               "unused argument")
  expect_error(cde(eruptions ~ waiting, data = faithful, method = "rkde", weights = waiting),
               "cde_rkde does not support sample weights; supported: cde_auto, kde_gmm")
})

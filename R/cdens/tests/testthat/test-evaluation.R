# crps(), evaluate() and compare() against closed forms and the models' own answers.

split_faithful <- function() {
  list(train = faithful[seq(1, 272, 2), ], test = faithful[seq(2, 272, 2), ])
}

test_that("the CRPS of the linear-Gaussian model is the Gaussian's closed form", {
  data <- split_faithful()
  model <- cde_linear(eruptions ~ waiting, data = data$train)
  mean <- predict(model, data$test, type = "mean")
  sd <- sqrt(predict(model, data$test, type = "variance"))
  z <- (data$test$eruptions - mean) / sd
  closed_form <- sd * (z * (2 * stats::pnorm(z) - 1) + 2 * stats::dnorm(z) - 1 / sqrt(pi))
  expect_equal(crps(model, data$test), closed_form, tolerance = 1e-10)
})

test_that("evaluate() reports every score with the model's own answers", {
  data <- split_faithful()
  model <- cde_kcde(eruptions ~ waiting, data = data$train, seed = 0)
  report <- evaluate(model, data$test)
  expect_s3_class(report, "cdens_evaluation")
  expect_equal(report$n, nrow(data$test))
  scores <- stats::setNames(report$scores$mean, report$scores$score)
  expect_equal(scores[["log_likelihood"]], mean(predict(model, data$test)), tolerance = 1e-12)
  expect_equal(scores[["crps"]], mean(crps(model, data$test)), tolerance = 1e-12)
  expect_identical(report$values$crps, crps(model, data$test))
  coverage <- mean(abs(report$calibration$pit$values - 0.5) <= 0.45)
  expect_equal(scores[["central_coverage_0.9"]], coverage, tolerance = 1e-12)
  expect_output(print(report), "pit uniformity")
})

test_that("compare() pairs the models' scores: means as evaluate's, differences as theirs", {
  data <- split_faithful()
  linear <- cde_linear(eruptions ~ waiting, data = data$train)
  kcde <- cde_kcde(eruptions ~ waiting, data = data$train, seed = 0)
  comparison <- compare(linear = linear, kcde = kcde, newdata = data$test)
  expect_s3_class(comparison, "cdens_comparison")
  expect_identical(colnames(comparison$means), c("linear", "kcde"))
  expect_equal(comparison$means["crps", "kcde"], mean(crps(kcde, data$test)), tolerance = 1e-12)
  first <- Filter(function(d) d$score == "crps", comparison$differences)[[1]]
  expect_equal(first$mean, mean(crps(linear, data$test) - crps(kcde, data$test)),
               tolerance = 1e-12)
  expect_equal(sum(comparison$best_shares["crps", ]), 1, tolerance = 1e-12)
  expect_error(compare(linear, newdata = data$test), "at least two")
})

test_that("a density model is scored on its points", {
  model <- kde_gmm(faithful["eruptions"], n_components = 2, seed = 0)
  report <- evaluate(model, faithful)
  expect_equal(report$scores$mean[report$scores$score == "log_likelihood"],
               mean(predict(model, faithful)), tolerance = 1e-12)
})

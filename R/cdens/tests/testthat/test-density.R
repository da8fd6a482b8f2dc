# Density methods from R (kde(), kde_<method>()) against closed forms and brute force.

test_that("a Parzen window of one width is the mean of the kernels at the data", {
  set.seed(2)
  points <- stats::rnorm(50)
  model <- kde_parzen(points, bandwidth = 0.4, standardize = FALSE)
  at <- c(-2, -0.3, 0, 1.7)
  brute_force <- vapply(at, function(x) mean(stats::dnorm(x, points, 0.4)), 0)
  expect_equal(predict(model, at, type = "density"), brute_force, tolerance = 1e-12)
  expect_equal(predict(model, at, type = "cdf"),
               vapply(at, function(x) mean(stats::pnorm(x, points, 0.4)), 0), tolerance = 1e-12)
  quantiles <- quantile(model, c(0.2, 0.7))
  expect_equal(predict(model, quantiles[, 1], type = "cdf"), c(0.2, 0.7), tolerance = 1e-8)
  expect_identical(dim(quantiles), c(2L, 1L))
})

test_that("a Gaussian mixture of one component is the data's Gaussian (maximum likelihood)", {
  data <- faithful
  model <- kde_gmm(~ eruptions + waiting, data = data, n_components = 1, seed = 0)
  expect_identical(model$x_names, c("eruptions", "waiting"))
  expect_equal(unname(model$centers[1, ]), unname(colMeans(data)), tolerance = 1e-8)
  spread <- sqrt(colMeans(sweep(data, 2, colMeans(data))^2))
  expect_equal(unname(model$scales[1, ]), unname(spread), tolerance = 1e-6)
  expected <- stats::dnorm(data$eruptions[1:5], mean(data$eruptions), spread[1]) *
    stats::dnorm(data$waiting[1:5], mean(data$waiting), spread[2])
  expect_equal(predict(model, data[1:5, ], type = "density"), expected, tolerance = 1e-6)
})

test_that("kde() is the method's function; draws follow the density", {
  data <- faithful["eruptions"]
  by_front_door <- kde(data, method = "gmm", n_components = 2, seed = 1)
  by_function <- kde_gmm(data, n_components = 2, seed = 1)
  expect_identical(predict(by_front_door, data), predict(by_function, data))
  draws <- simulate(by_function, 20000, seed = 3)
  expect_identical(dim(draws), c(20000L, 1L))
  expect_lt(abs(mean(draws) - by_function$mean) / sqrt(by_function$covariance[1, 1] / 20000), 4.5)
  expect_equal(as.numeric(logLik(by_function)), sum(predict(by_function)))
  expect_output(print(summary(by_function)), "method gmm")
})

test_that("a density integrates to one", {
  model <- kde_skd(faithful["eruptions"], seed = 0)
  grid <- seq(-2, 9, length.out = 20001)
  density <- predict(model, grid, type = "density")
  expect_equal(sum(density) * (grid[2] - grid[1]), 1, tolerance = 1e-6)
})

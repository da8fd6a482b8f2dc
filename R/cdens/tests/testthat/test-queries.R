# The queries of predict(), simulate(), logLik(), summary() and plot() against what they must
# equal: closed forms of the linear-Gaussian model, the CDF at its own quantiles, integrals of the
# density on a grid, the mean of many draws.

linear_model <- function() {
  set.seed(5)
  data <- data.frame(x = stats::runif(60, -1, 1))
  data$y <- 1 + 2 * data$x + stats::rnorm(60, sd = 0.5)
  list(model = cde_linear(y ~ x, data = data), data = data)
}

test_that("the linear-Gaussian model answers its closed forms", {
  fitted <- linear_model()
  model <- fitted$model
  at <- data.frame(x = c(-0.5, 0, 0.5), y = c(0, 1, 2))
  mean <- predict(model, at, type = "mean")
  expect_equal(mean[2] - mean[1], mean[3] - mean[2], tolerance = 1e-12)
  sd <- sqrt(predict(model, at, type = "variance"))
  expect_equal(sd, rep(sd[1], 3), tolerance = 1e-12)
  quartiles <- predict(model, at, type = "quantile", probs = c(0.25, 0.75))
  expect_equal(unname(quartiles), cbind(stats::qnorm(0.25, mean, sd), stats::qnorm(0.75, mean, sd)),
               tolerance = 1e-9)
  expect_equal(predict(model, at, type = "density"), stats::dnorm(at$y, mean, sd),
               tolerance = 1e-12)
  expect_equal(predict(model, at, type = "cdf"), stats::pnorm(at$y, mean, sd), tolerance = 1e-9)
  regions <- predict(model, at, type = "hdr", level = 0.8)
  expect_equal(unname(regions[[2]][1, ]), stats::qnorm(c(0.1, 0.9), mean[2], sd[2]),
               tolerance = 1e-6)
})

test_that("density, cdf, quantiles, intervals and regions agree with one another", {
  model <- cde_kcde(eruptions ~ waiting, data = faithful, seed = 0)
  at <- faithful[c(1, 2, 50), ]
  expect_identical(predict(model, at, type = "density"), exp(predict(model, at)))
  probs <- c(0.05, 0.5, 0.95)
  quantiles <- predict(model, at, type = "quantile", probs = probs)
  expect_identical(colnames(quantiles), c("5%", "50%", "95%"))
  for (k in seq_along(probs)) {
    cdf <- predict(model, at["waiting"], type = "cdf", y = quantiles[, k])
    expect_equal(cdf, rep(probs[k], 3), tolerance = 1e-6)
  }
  interval <- predict(model, at, type = "interval", level = 0.9)
  expect_identical(unname(interval),
                   unname(predict(model, at, type = "quantile", probs = c(1 - 0.9, 1 + 0.9) / 2)))
  regions <- predict(model, at, type = "hdr", level = 0.9)
  for (j in seq_along(regions)) {
    bounds <- regions[[j]]
    row <- at[rep(j, nrow(bounds)), "waiting", drop = FALSE]
    mass <- sum(predict(model, row, type = "cdf", y = bounds[, "upper"]) -
                  predict(model, row, type = "cdf", y = bounds[, "lower"]))
    expect_equal(mass, 0.9, tolerance = 1e-6)
  }
})

test_that("the mean and variance are the density's moments", {
  model <- cde_lscde(eruptions ~ waiting, data = faithful, sigma = 0.3, regularization = 0.1,
                     seed = 0)
  at <- faithful[c(3, 30), ]
  grid <- seq(-3, 9, length.out = 4001)
  step <- grid[2] - grid[1]
  for (j in 1:2) {
    row <- at[rep(j, length(grid)), "waiting", drop = FALSE]
    density <- predict(model, row, type = "density", y = grid)
    mean <- sum(grid * density) * step
    expect_equal(predict(model, at[j, ], type = "mean"), mean, tolerance = 1e-6)
    expect_equal(predict(model, at[j, ], type = "variance"), sum((grid - mean)^2 * density) * step,
                 tolerance = 1e-6)
  }
})

test_that("several outputs: means, covariance matrices, a joint density", {
  data <- transform(faithful, duration = eruptions * 60)
  data$noise <- stats::rnorm(nrow(data))
  model <- cde_kcde(cbind(eruptions, noise) ~ waiting, data = data, seed = 0)
  expect_identical(model$y_names, c("eruptions", "noise"))
  mean <- predict(model, data[1:4, ], type = "mean")
  expect_identical(dim(mean), c(4L, 2L))
  covariance <- predict(model, data[1:4, ], type = "variance")
  expect_identical(dim(covariance), c(4L, 2L, 2L))
  expect_equal(covariance[, 1, 2], covariance[, 2, 1])
  expect_true(all(is.finite(predict(model, data[1:4, ]))))
  expect_error(predict(model, data[1:4, ], type = "quantile"), "one-dimensional y")
  draws <- simulate(model, 5, seed = 1, newdata = data[1:4, ])
  expect_identical(dim(draws), c(4L, 5L, 2L))
})

test_that("simulate() draws repeatably from the model: the mean of many draws is its mean", {
  model <- cde_lscde(eruptions ~ waiting, data = faithful, sigma = 0.3, regularization = 0.1,
                     seed = 0)
  at <- faithful[c(3, 30), ]
  draws <- simulate(model, 20000, seed = 7, newdata = at)
  expect_identical(dim(draws), c(2L, 20000L))
  expect_identical(attr(draws, "seed")[1], 7)
  expect_identical(simulate(model, 20000, seed = 7, newdata = at), draws)
  set.seed(3)
  first <- simulate(model, 10, newdata = at)
  set.seed(3)
  expect_identical(simulate(model, 10, newdata = at), first)
  sd <- sqrt(predict(model, at, type = "variance"))
  expect_lt(max(abs(rowMeans(draws) - predict(model, at, type = "mean")) / (sd / sqrt(20000))), 4.5)
})

test_that("logLik is the training rows' summed log-density; summary holds the report", {
  model <- cde_lscde(eruptions ~ waiting, data = faithful, sigma = c(0.2, 0.5),
                     regularization = c(0.1, 1), seed = 0)
  likelihood <- logLik(model)
  expect_equal(as.numeric(likelihood), sum(predict(model, faithful)))
  expect_identical(attr(likelihood, "nobs"), nrow(faithful))
  expect_equal(as.numeric(logLik(model, faithful[1:10, ])), sum(predict(model, faithful[1:10, ])))
  report <- summary(model)
  table <- report$cross_validation
  expect_identical(nrow(table), 4L)
  chosen <- table[table$chosen, ]
  expect_identical(chosen$mean_loss, min(table$mean_loss))
  expect_identical(chosen$sigma, report$hyperparameters[["sigma"]])
  expect_identical(chosen$regularization, report$hyperparameters[["regularization"]])
  expect_output(print(report), "Cross-validation \\(kl loss\\)")
  expect_output(print(model), "method lscde")
  auto <- summary(cde(eruptions ~ waiting, data = faithful[1:120, ], method = "auto",
                      candidates = c("linear", "kcde"), seed = 0))
  expect_identical(auto$method_selection$candidate, c("linear", "kcde"))
  expect_equal(sum(auto$method_selection$weight), 1, tolerance = 1e-12)
})

test_that("plot() draws p(y|x) as the model answers it", {
  model <- cde_lscde(eruptions ~ waiting, data = faithful, sigma = 0.3, regularization = 0.1,
                     seed = 0)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  y_grid <- seq(1, 6, length.out = 7)
  map <- plot(model, y_grid = y_grid, n_grid = 5)
  waiting <- seq(min(faithful$waiting), max(faithful$waiting), length.out = 5)
  expected <- t(sapply(waiting, function(w) {
    predict(model, data.frame(waiting = rep(w, 7)), type = "density", y = y_grid)
  }))
  expect_equal(unname(map), expected, tolerance = 1e-14)
  curves <- plot(model, type = "curves", newdata = data.frame(waiting = c(50, 80)),
                 y_grid = y_grid)
  expect_identical(dim(curves), c(2L, 7L))
  density <- kde_parzen(faithful["eruptions"])
  expect_length(plot(density, n_grid = 50), 50L)
})

test_that("every query a method declares is a type of predict(), with its declared shape", {
  rows <- faithful_rows()[1:6, ]
  for (entry in Filter(function(entry) length(entry$queries), cdens_methods())) {
    model <- cheap_fit(entry)
    for (query in entry$queries) {
      answer <- predict(model, rows, type = query$name)
      expect_identical(NROW(answer), 6L, label = paste(entry$name, query$name))
      expect_true(all(is.finite(answer)), label = paste(entry$name, query$name))
    }
  }
  press <- cheap_fit(cdens_methods()$press)
  weights <- predict(press, rows, type = "state_weights")
  expect_equal(rowSums(weights), rep(1, 6), tolerance = 1e-12)
  expect_true(all(weights >= 0))
  # The point prediction is the weighted mean of the states' means (the PRESS paper, eq. 9).
  expect_equal(predict(press, rows, type = "point_prediction"),
               drop(weights %*% press$extras$state_means), tolerance = 1e-12)
})

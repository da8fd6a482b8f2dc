# How fits run from R: on any number of threads with one answer, their progress through
# message(), and R's interrupt, which stops a long fit at its next step.

test_that("a fit does not depend on its thread count", {
  data <- faithful_rows()
  one <- cde_lscde(eruptions ~ waiting, data = data, seed = 4, n_jobs = 1)
  two <- cde_lscde(eruptions ~ waiting, data = data, seed = 4, n_jobs = 2)
  expect_identical(predict(two, data), predict(one, data))
  expect_identical(predict(cde_kcde(eruptions ~ waiting, data = data, seed = 4, n_jobs = 2), data),
                   predict(cde_kcde(eruptions ~ waiting, data = data, seed = 4, n_jobs = 1), data))
})

test_that("verbose = TRUE reports the fit's stages through message(); the default is silent", {
  data <- faithful_rows()
  expect_message(cde_lscde(eruptions ~ waiting, data = data, seed = 0, verbose = TRUE),
                 "cross-validation: \\d+/\\d+ in")
  expect_silent(suppressWarnings(cde_lscde(eruptions ~ waiting, data = data, seed = 0)))
  messages <- character()
  withCallingHandlers(
    cde_lscde(eruptions ~ waiting, data = data, seed = 0, verbose = TRUE),
    message = function(m) {
      messages <<- c(messages, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_true(any(grepl("cross-validation", messages)))
})

test_that("a message handler that leaves the fit unwinds it cleanly", {
  data <- faithful_rows()
  left <- tryCatch(cde_lscde(eruptions ~ waiting, data = data, seed = 0, verbose = TRUE),
                   message = function(m) "left")
  expect_identical(left, "left")
  # The engine still fits afterwards.
  expect_s3_class(cde_lscde(eruptions ~ waiting, data = data, seed = 0), "cdens_cde")
})

# Runs a fit of half a minute in another R process on `threads` threads, interrupts it as Ctrl-C
# does (SIGINT) once it runs, and returns what the process printed and the seconds from the
# signal to its end.
interrupted_fit <- function(threads) {
  script <- tempfile(fileext = ".R")
  writeLines(c(
    sprintf(".libPaths(c(%s))", paste(deparse(.libPaths()), collapse = "")),
    "library(cdens)",
    "set.seed(1)",
    "n <- 4000",
    "data <- data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n))",
    "data$y <- data$a + rnorm(n)",
    "cat('fitting\\n')",
    "result <- tryCatch({",
    # 5,000 cross-validation steps of a few milliseconds.
    sprintf("  cde_lscde(y ~ ., data = data, seed = 0, n_jobs = %d, n_centers = 300,", threads),
    "            folds = 10, sigma = exp(seq(-3, 1, length.out = 100))); 'finished'",
    "}, interrupt = function(condition) 'interrupted')",
    "cat(result, '\\n')"), script)
  output <- tempfile()
  process <- sys_run_background(file.path(R.home("bin"), "Rscript"), script, output)
  for (k in 1:100) {
    if (any(grepl("fitting", output_lines(output)))) break
    Sys.sleep(0.1)
  }
  Sys.sleep(1)
  signalled <- Sys.time()
  tools::pskill(process, tools::SIGINT)
  for (k in 1:300) {
    if (any(grepl("interrupted|finished", output_lines(output)))) break
    Sys.sleep(0.1)
  }
  list(lines = output_lines(output), seconds = as.numeric(Sys.time() - signalled, units = "secs"))
}

test_that("an interrupt stops a long fit at its next step, on one thread or several", {
  skip_on_cran()
  for (threads in 1:2) {
    run <- interrupted_fit(threads)
    expect_true(any(grepl("^interrupted", run$lines)), label = paste(run$lines, collapse = "\n"))
    expect_lt(run$seconds, 3)
  }
})

# Model files: cdens_save() and cdens_load() round-trip every answer to the bit, and one model
# file answers alike in R, in the Python package and in the `cdens` command (bit for bit: each
# number passes as its hexadecimal text). The cross-front-end tests need the command and the
# Python package of the same build: CDENS_CLI and CDENS_PYTHON (make test-r sets both).

answers_of <- function(model, newdata) {
  cbind(log_density = predict(model, newdata), mean = predict(model, newdata, type = "mean"),
        variance = predict(model, newdata, type = "variance"),
        predict(model, newdata, type = "quantile", probs = c(0.1, 0.5, 0.9)))
}

# Query rows whose numbers are exact in binary and short in decimal, so that the CSV that the
# command and Python read holds the very numbers R queries.
exact_rows <- function() {
  data.frame(waiting = c(45, 54.5, 62.25, 70, 78.75, 90),
             eruptions = c(1.75, 2, 2.5, 3.5, 4.25, 4.75))
}

labelled_rows <- function() {
  data.frame(x = c(-1.5, -0.25, 0, 0.75, 1.5), colour = c("red", "blue", "green", "blue", "red"),
             size = c("S", "M", "L", "L", "S"), y = c(0.5, 1.25, 2, 2.75, 3.5))
}

labelled_fit <- function() {
  cde_kcde(y ~ x + colour + size, data = mixed_data(), seed = 1)
}

test_that("a saved model loads back to the same answers, the same file and the same labels", {
  file <- tempfile(fileext = ".json")
  for (model in list(cde_lscde(eruptions ~ waiting, data = faithful, seed = 0),
                     labelled_fit())) {
    rows <- if (model$method == "kcde") labelled_rows() else exact_rows()
    cdens_save(model, file)
    loaded <- cdens_load(file)
    expect_s3_class(loaded, "cdens_cde")
    expect_identical(loaded$x_names, model$x_names)
    expect_identical(loaded$labels, model$labels)
    expect_identical(answers_of(loaded, rows), answers_of(model, rows))
    expect_identical(predict(loaded, rows, type = "hdr"), predict(model, rows, type = "hdr"))
    again <- tempfile(fileext = ".json")
    cdens_save(loaded, again)
    expect_identical(unname(tools::md5sum(again)), unname(tools::md5sum(file)))
  }
  density <- kde_gmm(faithful, n_components = 2, seed = 0)
  cdens_save(density, file)
  loaded <- cdens_load(file)
  expect_s3_class(loaded, "cdens_kde")
  expect_identical(predict(loaded, faithful[1:9, ]), predict(density, faithful[1:9, ]))
  expect_identical(simulate(loaded, 5, seed = 2), simulate(density, 5, seed = 2))
})

test_that("a loaded model has no training data: predict() needs newdata", {
  file <- tempfile(fileext = ".json")
  cdens_save(cde_linear(eruptions ~ waiting, data = faithful), file)
  expect_error(predict(cdens_load(file)), "give newdata")
  expect_error(cdens_load(tempfile()), class = "cdens_io_error")
})

# The answers of R, Python and the command for one model file, as columns of R numbers: R's, then
# Python's, then the command's.
front_end_answers <- function(model_file, rows, r_answers) {
  data_file <- tempfile(fileext = ".csv")
  out_file <- tempfile(fileext = ".csv")
  utils::write.csv(rows, data_file, row.names = FALSE)
  script <- test_path("front_end_answers.py")
  status <- system2(Sys.getenv("CDENS_PYTHON"),
                    c(script, model_file, data_file, Sys.getenv("CDENS_CLI"), out_file))
  expect_identical(status, 0L)
  hex <- utils::read.csv(out_file, colClasses = "character", check.names = FALSE)
  numbers <- vapply(hex, as.numeric, numeric(nrow(hex)))
  list(python = numbers[, 1:6], cli = numbers[, 7:12])
}

# Whether the command and the Python package are given (CDENS_CLI, CDENS_PYTHON).
cross_front_ends_available <- function() {
  nzchar(Sys.getenv("CDENS_PYTHON")) && nzchar(Sys.getenv("CDENS_CLI"))
}

# Whether they run the same copy of the vector loops as this package, so that all three compute
# the same bits: builds with other vector code (a portable package beside a native command, as
# on a fresh machine beside make's build) agree to rounding only.
same_vector_code <- function() {
  ours <- cdens_vector_instruction_set()
  command <- system2(Sys.getenv("CDENS_CLI"), "--version", stdout = TRUE)
  python <- system2(Sys.getenv("CDENS_PYTHON"),
                    c("-c", shQuote("import cdens; print(cdens.vector_instruction_set())")),
                    stdout = TRUE)
  grepl(sprintf("(vector instructions: %s)", ours), command, fixed = TRUE) &&
    identical(python, ours)
}

# R's answers against another front end's: the same bits from the same vector code, else equal
# to rounding.
expect_same_answers <- function(theirs, ours, label) {
  if (same_vector_code()) {
    expect_identical(theirs, ours, label = label)
  } else {
    expect_equal(theirs, ours, tolerance = 1e-9, label = label)
  }
}

test_that("make test-r compares builds of the same vector code", {
  skip_if(!nzchar(Sys.getenv("CDENS_CLI")), "CDENS_CLI is not set")
  skip_if(!nzchar(Sys.getenv("CDENS_MAKE_TEST")), "not make test-r")
  expect_true(same_vector_code())
})

test_that("one model file fitted in R answers bit for bit alike in R, Python and the command", {
  skip_if_not(cross_front_ends_available(), "CDENS_PYTHON and CDENS_CLI are not set")
  cases <- list(list(model = cde_lscde(eruptions ~ waiting, data = faithful, seed = 0),
                     rows = exact_rows()),
                list(model = labelled_fit(), rows = labelled_rows()),
                list(model = cde_auto(eruptions ~ waiting, data = faithful[1:150, ],
                                      candidates = c("linear", "kcde"), seed = 0),
                     rows = exact_rows()))
  for (case in cases) {
    file <- tempfile(fileext = ".json")
    cdens_save(case$model, file)
    ours <- unname(answers_of(cdens_load(file), case$rows))
    theirs <- front_end_answers(file, case$rows)
    expect_same_answers(unname(theirs$python), ours, paste("Python", case$model$method))
    expect_same_answers(unname(theirs$cli), ours, paste("the command", case$model$method))
  }
})

test_that("a model file fitted by the command answers alike in R, Python and the command", {
  skip_if_not(cross_front_ends_available(), "CDENS_PYTHON and CDENS_CLI are not set")
  data_file <- tempfile(fileext = ".csv")
  model_file <- tempfile(fileext = ".json")
  utils::write.csv(exact_rows()[rep(1:6, 10), ] + stats::rnorm(60, sd = 0.25), data_file,
                   row.names = FALSE)
  status <- system2(Sys.getenv("CDENS_CLI"),
                    c("fit", data_file, "--method", "kcde", "--x", "waiting", "--y", "eruptions",
                      "--out", model_file, "--quiet"), stdout = FALSE)
  expect_identical(status, 0L)
  model <- cdens_load(model_file)
  ours <- unname(answers_of(model, exact_rows()))
  theirs <- front_end_answers(model_file, exact_rows())
  expect_same_answers(unname(theirs$python), ours, "Python")
  expect_same_answers(unname(theirs$cli), ours, "the command")
})

test_that("a model restored by readRDS() says how to keep a model: its engine is gone", {
  file <- tempfile(fileext = ".rds")
  model <- cde_linear(eruptions ~ waiting, data = faithful)
  saveRDS(model, file)
  restored <- readRDS(file)
  expect_error(predict(restored, faithful[1:3, ]), "cdens_save\\(\\) and cdens_load\\(\\)",
               class = "cdens_invalid_argument")
})

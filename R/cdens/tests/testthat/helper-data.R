# Small data sets for the tests: fits of a few dozen rows run in milliseconds with the methods'
# test options (the registry's, as the C++ and Python conformance suites use them).

# n pairs with a continuous input, an unordered factor, an ordered factor and y depending on all.
mixed_data <- function(n = 80, seed = 1) {
  set.seed(seed)
  colour <- factor(sample(c("red", "green", "blue"), n, replace = TRUE),
                   levels = c("red", "green", "blue"))
  size <- factor(sample(c("S", "M", "L"), n, replace = TRUE), levels = c("S", "M", "L"),
                 ordered = TRUE)
  x <- stats::runif(n, -2, 2)
  y <- sin(x) + 0.5 * as.integer(colour) + 0.3 * as.integer(size) + stats::rnorm(n, sd = 0.3)
  data.frame(x = x, colour = colour, size = size, y = y)
}

# The registry's test options of a method (short grids, few centres) as R arguments.
test_options <- function(entry) {
  options <- entry$test_options
  rows <- stats::setNames(entry$options, vapply(entry$options, `[[`, "", "name"))
  stats::setNames(options, vapply(names(options), function(name) rows[[name]]$r_name, ""))
}

# A fit of `entry` with its test options and seed 0 on faithful (or a 2-D sample for a density).
cheap_fit <- function(entry, ...) {
  arguments <- c(test_options(entry), list(...))
  if ("seed" %in% vapply(entry$options, `[[`, "", "name")) arguments$seed <- 0
  if (entry$family == "density") {
    return(suppressWarnings(do.call(entry$r_function, c(list(x = faithful_rows()), arguments))))
  }
  suppressWarnings(do.call(entry$r_function, c(list(x = eruptions ~ waiting,
                                                    data = faithful_rows()), arguments)))
}

faithful_rows <- function() datasets::faithful[seq(1, 272, by = 4), ]

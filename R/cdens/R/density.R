# The queries of a fitted density p(x) (kde() and kde_<method>()): predict() at points,
# quantile() of each margin, simulate() draws.

predict.cdens_kde <- function(object, newdata = NULL, type = c("log_density", "density", "cdf"),
                              ...) {
  type <- match.arg(type)
  rows <- query_rows(object, newdata)
  if (type == "cdf" && object$dimension != 1L) {
    stop_cdens(sprintf("type = \"cdf\" needs a one-dimensional density; this one has %d dimensions",
                       object$dimension))
  }
  answer_rows(object, rows, function(x, y) {
    switch(type,
      log_density = .Call(C_cdens_density_log_pdf, object$model, x),
      density = exp(.Call(C_cdens_density_log_pdf, object$model, x)),
      cdf = .Call(C_cdens_density_cdf, object$model, x))
  })
}

# The quantiles of every margin: one row per probability, one column per dimension.
quantile.cdens_kde <- function(x, probs = c(0.1, 0.5, 0.9), ...) {
  values <- .Call(C_cdens_density_quantiles, x$model, as.numeric(probs))
  dimnames(values) <- list(paste0(format(100 * probs, trim = TRUE), "%"), x$x_names)
  values
}

# The highest-density region of a one-dimensional density: the intervals (a matrix of lower
# and upper bounds) with the attribute density_threshold.
hdr_of_density <- function(object, level) .Call(C_cdens_density_hdr, object$model, level)

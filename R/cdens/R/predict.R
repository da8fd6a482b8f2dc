# predict() of a fitted conditional density p(y|x): one query of the fitted distribution per row
# of newdata (the training data without it).

predict.cdens_cde <- function(object, newdata = NULL,
                              type = c("log_density", "density", "cdf", "quantile", "mean",
                                       "variance", "interval", "hdr"),
                              probs = c(0.1, 0.5, 0.9), level = 0.9, y = NULL, ...) {
  queries <- vapply(cdens_methods()[[object$method]]$queries, `[[`, "", "name")
  if (length(type) == 1L && type %in% queries) return(declared_query(object, newdata, type))
  type <- match.arg(type)
  pairs <- type %in% c("log_density", "density", "cdf")
  if (type %in% c("cdf", "quantile", "interval", "hdr") && object$output_dim != 1L) {
    stop_cdens(sprintf("type = \"%s\" needs a one-dimensional y; this model has %d outputs", type,
                       object$output_dim))
  }
  rows <- query_rows(object, newdata, outputs = pairs, y = y)
  model <- object$model
  labels <- output_labels(object)
  answer_rows(object, rows, function(x, y) {
    switch(type,
      log_density = .Call(C_cdens_log_pdf, model, x, y),
      density = exp(.Call(C_cdens_log_pdf, model, x, y)),
      cdf = .Call(C_cdens_cdf, model, x, y),
      quantile = quantile_answers(object, x, probs, labels),
      interval = interval_answers(object, x, level, labels),
      mean = mean_answers(object, x, labels),
      variance = variance_answers(object, x),
      hdr = .Call(C_cdens_hdr, model, x, level))
  })
}

# The labels of a one-dimensional y of labels (a factor when fitted), else NULL.
output_labels <- function(object) {
  if (object$output_dim != 1L) return(NULL)
  object$labels[[object$y_names]]
}

quantile_answers <- function(object, x, probs, labels) {
  values <- .Call(C_cdens_quantiles, object$model, x, as.numeric(probs))
  colnames(values) <- paste0(format(100 * probs, trim = TRUE), "%")
  if (is.null(labels)) return(values)
  if (object$output_kinds != "ordered") {
    stop_cdens(sprintf("quantiles need an ordered y; '%s' is unordered", object$y_names))
  }
  as_labels(values, labels, ordered = TRUE)
}

interval_answers <- function(object, x, level, labels) {
  if (!is.numeric(level) || length(level) != 1L || !(level > 0 && level < 1)) {
    stop_cdens("level must be one probability in (0, 1)")
  }
  values <- quantile_answers(object, x, c((1 - level) / 2, (1 + level) / 2), labels)
  colnames(values) <- c("lower", "upper")
  values
}

mean_answers <- function(object, x, labels) {
  if (!is.null(labels)) {
    # The most probable label (the first of ties), as Python's predict.
    masses <- vapply(seq_along(labels) - 1, function(code) {
      .Call(C_cdens_log_pdf, object$model, x, matrix(code, nrow(x), 1L))
    }, numeric(nrow(x)))
    return(factor(labels[max.col(matrix(masses, nrow(x)), ties.method = "first")],
                  levels = labels, ordered = object$output_kinds == "ordered"))
  }
  values <- .Call(C_cdens_mean, object$model, x)
  if (object$output_dim == 1L) return(values[, 1L])
  colnames(values) <- object$y_names
  values
}

variance_answers <- function(object, x) {
  values <- .Call(C_cdens_covariance, object$model, x)
  d <- object$output_dim
  if (d == 1L) return(values[, 1L])
  array(t(values), c(d, d, nrow(x)), list(object$y_names, object$y_names, NULL)) |>
    aperm(c(3L, 1L, 2L))
}

# Codes as the labels they stand for: a matrix of labels, or a factor for a vector.
as_labels <- function(codes, labels, ordered) {
  values <- labels[codes + 1]
  if (is.null(dim(codes))) return(factor(values, levels = labels, ordered = ordered))
  matrix(values, nrow(codes), dimnames = dimnames(codes))
}

# The answer of a query the model's method declares beyond the family's (PRESS's state_weights,
# LSCE's transform): a vector, or a matrix of one row per row of newdata.
declared_query <- function(object, newdata, name) {
  rows <- query_rows(object, newdata)
  answer_rows(object, rows, function(x, y) .Call(C_cdens_query, object$model, name, x))
}

# The inputs and outputs of a query as the engine reads them: newdata's columns by the model's
# variable names (through the formula's terms for a formula fit, so that transformed terms such
# as log(x) are computed from newdata as in the fit), labels coded with the model's. Rows with a
# missing value are not queried: their answers are NA, in place (as predict.lm's na.pass).

# The query inputs of `object` (a matrix of the model's inputs, one row per row of newdata) and,
# where `outputs`, the outputs too; NULL newdata is the training data.
query_rows <- function(object, newdata, outputs = FALSE, y = NULL) {
  if (is.null(newdata)) {
    if (is.null(object$train_x)) stop_cdens("a loaded model has no training data: give newdata")
    return(list(x = object$train_x, y = if (outputs) object$train_y))
  }
  frame <- query_frame(object, newdata, outputs && is.null(y))
  x <- coded_query(frame, object$x_names, object$labels)
  if (!outputs) return(list(x = x))
  if (!is.null(y)) frame <- as_frame(y, "y", single = object$y_names[1L])
  list(x = x, y = coded_query(frame, object$y_names, object$labels, output = TRUE))
}

# newdata as a data frame of the model's variables: through the formula's terms where there are
# some, else the columns of a data frame or of a matrix (in the order of the model's inputs, then
# outputs, where it has no names).
query_frame <- function(object, newdata, outputs) {
  if (!is.null(object$terms)) {
    terms <- if (outputs) object$terms else stats::delete.response(object$terms)
    frame <- stats::model.frame(terms, as.data.frame(newdata), na.action = stats::na.pass)
    if (outputs && object$family != "density") {
      frame <- cbind(frame[-1L], response_frame(frame))
    }
    return(frame)
  }
  if (is.data.frame(newdata)) return(newdata)
  values <- if (is.null(dim(newdata))) matrix(newdata, ncol = 1L) else newdata
  if (is.null(colnames(values))) {
    names <- c(object$x_names, if (outputs) object$y_names)
    if (ncol(values) != length(names)) {
      stop_cdens(sprintf("newdata has %d columns; the model's %s %d", ncol(values),
                         if (outputs) "inputs and outputs are" else "inputs are", length(names)))
    }
    colnames(values) <- names
  }
  as.data.frame(values, stringsAsFactors = FALSE)
}

# `answer(x, y)` on the complete rows of the query, NA (one value or one row of values) in the
# others; a warning, where some rows lie beyond the training inputs, that says how many.
answer_rows <- function(object, rows, answer) {
  complete <- stats::complete.cases(rows$x, if (!is.null(rows$y)) rows$y)
  x <- rows$x[complete, , drop = FALSE]
  y <- if (!is.null(rows$y)) rows$y[complete, , drop = FALSE]
  if (object$family != "density" && nrow(x)) {
    extrapolation <- .Call(C_cdens_extrapolation, object$model, x)
    if (nzchar(extrapolation$message)) {
      warn_cdens(extrapolation$message, "cdens_extrapolation_warning")
    }
  }
  in_place(answer(x, y), complete)
}

# Answers for the complete rows spread over all rows: NA in the others. A vector, a matrix (one
# row per row) or a list (one element per row) of answers.
in_place <- function(values, complete) {
  if (all(complete)) return(values)
  if (is.list(values) && !is.data.frame(values)) {
    result <- vector("list", length(complete))
    result[complete] <- values
    result[!complete] <- list(NA)
    return(result)
  }
  if (is.matrix(values)) {
    result <- matrix(NA_real_, length(complete), ncol(values), dimnames = dimnames(values))
    result[complete, ] <- values
    return(result)
  }
  result <- rep(values[NA_integer_], length(complete))
  result[complete] <- values
  result
}

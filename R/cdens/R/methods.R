# print(), summary() and logLik() of fitted models: what the fit chose and how (its report: the
# hyper-parameters, the cross-validation table, auto's table of candidates, the warnings).

print.cdens_cde <- function(x, ...) {
  cat(sprintf("cdens conditional density p(%s | %s), method %s\n",
              paste(x$y_names, collapse = ", "), paste(x$x_names, collapse = ", "), x$method))
  print_common(x)
  invisible(x)
}

print.cdens_kde <- function(x, ...) {
  cat(sprintf("cdens density p(%s), method %s: %d components\n",
              paste(x$x_names, collapse = ", "), x$method, x$n_components))
  print_common(x)
  invisible(x)
}

print_common <- function(x) {
  if (!is.null(x$call)) cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n", sep = "")
  chosen <- unlist(x$report$hyperparameters)
  if (length(chosen)) {
    cat("Chosen:", paste(sprintf("%s = %s", names(chosen), format(chosen, digits = 4)),
                         collapse = ", "), "\n")
  }
  if (!is.null(x$report$statistics$n_train)) {
    cat("Rows fitted:", x$report$statistics$n_train, "\n")
  }
  omitted <- length(x$na.action)
  if (omitted) cat(sprintf("(%d rows left out for missing values)\n", omitted))
}

summary.cdens_cde <- function(object, ...) summary_of(object)
summary.cdens_kde <- function(object, ...) summary_of(object)

# The fit report as R values: hyper-parameters and statistics (named numbers), the
# cross-validation table (a data frame: one row per candidate, the mean held-out loss and its
# standard error, the chosen row marked), how the parameters were chosen otherwise, auto's table
# of candidates (a data frame), the selected features, the warnings and the fit's seconds.
summary_of <- function(object) {
  report <- object$report
  structure(class = "summary.cdens_model", list(
    method = object$method, family = object$family, call = object$call,
    hyperparameters = unlist(report$hyperparameters), statistics = unlist(report$statistics),
    cross_validation = cv_table_of(report$cross_validation),
    parameter_choice = report$parameter_choice,
    method_selection = selection_table_of(report$method_selection),
    feature_selection = report$feature_selection,
    warnings = report$warnings, fit_seconds = report$fit_seconds,
    na.action = object$na.action))
}

cv_table_of <- function(table) {
  if (is.null(table)) return(NULL)
  candidates <- table$candidates
  colnames(candidates) <- unlist(table$parameter_names)
  frame <- data.frame(candidates, mean_loss = table$mean_loss,
                      standard_error = table$standard_error, check.names = FALSE)
  frame$chosen <- seq_len(nrow(frame)) == table$best + 1
  attr(frame, "loss") <- table$loss
  frame
}

selection_table_of <- function(selection) {
  if (is.null(selection)) return(NULL)
  rows <- lapply(selection$candidates, function(candidate) {
    as.data.frame(lapply(candidate, function(value) if (length(value)) value else NA),
                  stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

print.summary.cdens_model <- function(x, ...) {
  cat(sprintf("cdens %s fit, method %s (%.3g s)\n", x$family, x$method, x$fit_seconds))
  if (!is.null(x$call)) cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n", sep = "")
  if (length(x$hyperparameters)) {
    cat("\nChosen hyper-parameters:\n")
    print(x$hyperparameters)
  }
  if (!is.null(x$parameter_choice)) cat("\nHow they were chosen:", x$parameter_choice, "\n")
  if (!is.null(x$cross_validation)) {
    table <- x$cross_validation
    shown <- if (nrow(table) > 10L) sprintf(", the best 10 of %d candidates", nrow(table)) else ""
    cat(sprintf("\nCross-validation (%s loss)%s:\n", attr(table, "loss"), shown))
    print(utils::head(table[order(table$mean_loss), ], 10L), row.names = FALSE)
  }
  if (!is.null(x$method_selection)) {
    cat("\nCandidates:\n")
    print(x$method_selection, row.names = FALSE)
  }
  if (length(x$statistics)) {
    cat("\nStatistics:\n")
    print(x$statistics)
  }
  if (length(x$na.action)) {
    cat(sprintf("\n%d rows left out for missing values\n", length(x$na.action)))
  }
  if (length(x$warnings)) cat("\nWarnings:\n", paste0("  ", x$warnings, "\n"), sep = "")
  invisible(x)
}

# The log-likelihood of the training rows (or of newdata's): the sum of log p(y_i | x_i) (of
# log p(x_i) for a density), a logLik with nobs and df NA: a kernel estimate has no count of
# parameters, so AIC and BIC do not apply.
logLik.cdens_cde <- function(object, newdata = NULL, ...) log_likelihood_of(object, newdata)
logLik.cdens_kde <- function(object, newdata = NULL, ...) log_likelihood_of(object, newdata)

log_likelihood_of <- function(object, newdata) {
  values <- stats::predict(object, newdata, type = "log_density")
  values <- values[!is.na(values)]
  structure(sum(values), nobs = length(values), df = NA_real_, class = "logLik")
}

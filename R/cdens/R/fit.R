# Fits of any method of the registry, by formula or by matrices, and the fitted objects. The
# method functions (cde_<method>, kde_<method>, generated from the registry) and the front doors
# cde() and kde() all come here.

# The rows of a fit from the caller's matched `call` (x, y, data, weights, subset, na.action as
# the caller wrote them) in the caller's environment `env`: a formula's model frame, with
# `subset`, `weights` and `na.action` evaluated as lm() does (variables of data first), or x and
# y with the rows `na.action` keeps (by default getOption("na.action"), as for a formula). A list
# of x and y as data frames, the weights, the na.action attribute and the formula's terms.
fit_frames <- function(call, env, family) {
  density <- family == "density"
  x <- eval(call[["x"]], env)
  if (inherits(x, "formula")) {
    if (!is.null(call[["y"]])) stop_cdens("give y in the formula, not as y")
    if (density != (length(x) == 2L)) {
      stop_cdens(if (density) "a density's formula has no response: ~ a + b" else
        "a conditional density's formula has a response: y ~ x")
    }
    frame_call <- as.call(c(list(quote(stats::model.frame), formula = x),
                            as.list(call)[intersect(c("data", "subset", "weights", "na.action"),
                                                    names(call))],
                            drop.unused.levels = TRUE))
    frame <- eval(frame_call, env)
    terms <- attr(frame, "terms")
    if (any(attr(terms, "order") > 1L)) {
      stop_cdens("the formula has interactions: every term of x is a column of its own")
    }
    inputs <- frame[setdiff(names(frame), c(if (!density) names(frame)[1L], "(weights)"))]
    return(list(x = inputs, y = if (!density) response_frame(frame),
                weights = stats::model.weights(frame), terms = terms,
                na.action = attr(frame, "na.action")))
  }
  x <- as_frame(x, "x")
  y <- if (!density) as_frame(eval(call[["y"]], env), "y", single = "y")
  if (!density && nrow(x) != nrow(y)) {
    stop_cdens(sprintf("x and y have different numbers of rows: %d and %d", nrow(x), nrow(y)))
  }
  frame <- if (density) x else cbind(x, y)
  weights <- eval(call[["weights"]], env)
  if (!is.null(weights)) frame[["(weights)"]] <- weights
  na.action <- eval(call[["na.action"]], env)
  if (is.null(na.action)) na.action <- getOption("na.action", "na.omit")
  kept <- match.fun(na.action)(frame)
  list(x = kept[names(x)], y = if (!density) kept[names(y)],
       weights = if (!is.null(weights)) kept[["(weights)"]], terms = NULL,
       na.action = attr(kept, "na.action"))
}

# A model frame's response as a data frame: its columns (cbind(a, b) ~ .) or the one column,
# named as the formula writes it.
response_frame <- function(frame) {
  response <- frame[[1L]]
  if (is.matrix(response)) return(as.data.frame(response))
  stats::setNames(data.frame(response, check.names = FALSE), names(frame)[1L])
}

# x or y as a data frame with names: a matrix's or frame's own, else x1, x2, ... (y for a vector
# of outputs, y1, y2, ... for a matrix without names).
as_frame <- function(values, prefix, single = NULL) {
  if (is.null(values)) stop_cdens(sprintf("%s is required", prefix))
  if (is.data.frame(values)) return(values)
  if (is.null(dim(values))) {
    frame <- data.frame(values, stringsAsFactors = FALSE)
    names(frame) <- if (is.null(single)) paste0(prefix, 1L) else single
    return(frame)
  }
  frame <- as.data.frame(values, stringsAsFactors = FALSE)
  if (is.null(colnames(values))) names(frame) <- paste0(prefix, seq_len(ncol(values)))
  frame
}

# The fitted object of a conditional or regression method (class cdens_cde) or a density method
# (class cdens_kde): the engine's model, the method's extras, the coded training data (for
# predict() without newdata, logLik() and plot()), the formula's terms and what fit it.
fit_method <- function(method, call, env, options, verbose) {
  entry <- method_entry(method)
  density <- entry$family == "density"
  frames <- fit_frames(call, env, entry$family)
  x_columns <- columns_of(frames$x)
  y_columns <- if (density) list() else columns_of(frames$y)
  if (!length(x_columns)) stop_cdens("x has no columns")
  columns <- c(x_columns, y_columns)
  kinds <- vapply(columns, `[[`, "", "kind")
  declared <- list(discrete = which(kinds == "unordered") - 1,
                   ordered = which(kinds == "ordered") - 1)
  if (any(kinds != "continuous") && !takes_discrete_columns(entry)) {
    takes <- Filter(takes_discrete_columns, cdens_methods())
    stop_cdens(sprintf(paste("%s() smooths every column as continuous, and %s %s discrete",
                             "(factors, characters or logicals): fit %s, which take discrete",
                             "columns"),
                       entry$r_function,
                       paste0("'", names_of(columns)[kinds != "continuous"], "'", collapse = ", "),
                       if (sum(kinds != "continuous") > 1L) "are" else "is",
                       paste0(vapply(takes, `[[`, "", "r_function"), "()", collapse = " or ")))
  }
  values <- engine_options(entry, options, names_of(columns), declared)
  x_matrix <- matrix_of(x_columns)
  y_matrix <- if (density) NULL else matrix_of(y_columns)
  fit <- .Call(C_cdens_fit, entry$name, x_matrix, y_matrix, values,
               if (is.null(frames$weights)) NULL else as.numeric(frames$weights),
               names_of(x_columns), if (density) character() else names_of(y_columns),
               labels_of(columns), isTRUE(verbose))
  object <- model_object(fit$model, entry)
  object$extras <- fit$extras
  object$call <- call
  object$terms <- frames$terms
  object$na.action <- frames$na.action
  object$train_x <- x_matrix
  object$train_y <- y_matrix
  object$options <- options
  if (isTRUE(getOption("cdens.fit_warnings", TRUE))) {
    for (message in object$report$warnings) warn_cdens(message)
  }
  object
}

# The R object of an engine model: the model and what the engine says of it (names, labels,
# report); the class says its family.
model_object <- function(model, entry) {
  density <- entry$family == "density"
  info <- if (density) {
    .Call(C_cdens_density_info, model)
  } else {
    .Call(C_cdens_conditional_info, model)
  }
  object <- c(list(model = model, method = entry$name, family = entry$family), info[
    setdiff(names(info), "method")])
  object$report$warnings <- unlist(object$report$warnings)
  if (density) {
    # A density's points are its inputs: queries read them by these names.
    object$x_names <- object$names
    object$y_names <- character()
    object$labels <- list()
  }
  structure(object, class = c(if (density) "cdens_kde" else "cdens_cde", "cdens_model"))
}

# Whether a method takes discrete columns: its options declare them (KCDE's and auto's discrete
# and ordered).
takes_discrete_columns <- function(entry) {
  all(c("discrete", "ordered") %in% vapply(entry$options, `[[`, "", "name"))
}

# The columns of a fit as the engine reads them: numbers, each discrete column's labels coded
# 0, 1, ... . A factor is an unordered discrete column, an ordered factor an ordered one, both
# kept by their levels' names (the model's labels, which its file keeps, so that Python and the
# command read the same levels). An unordered factor's codes follow its levels sorted in C
# collation (byte order) and those present only, as the command and Python code a column of
# words, so that one data set gives one model in all three; an ordered factor keeps every level
# in its order. A character or logical column is an unordered factor.

# The columns of a data frame (a matrix column, such as poly()'s, split into its columns) as a
# list: name, values (numbers or codes), kind ("continuous", "unordered", "ordered") and labels
# (NULL for numbers).
columns_of <- function(frame) {
  columns <- list()
  for (name in names(frame)) {
    values <- frame[[name]]
    if (is.matrix(values) && ncol(values) > 1L) {
      parts <- colnames(values)
      if (is.null(parts)) parts <- seq_len(ncol(values))
      for (k in seq_len(ncol(values))) {
        columns[[length(columns) + 1L]] <- column_of(values[, k], paste0(name, parts[k]))
      }
    } else {
      columns[[length(columns) + 1L]] <- column_of(drop(values), name)
    }
  }
  columns
}

column_of <- function(values, name) {
  if (is.ordered(values)) {
    labels <- levels(values)
    return(list(name = name, values = as.numeric(values) - 1, kind = "ordered", labels = labels))
  }
  if (is.factor(values) || is.character(values) || is.logical(values)) {
    text <- as.character(values)
    labels <- sort(unique(text[!is.na(text)]), method = "radix")
    return(list(name = name, values = match(text, labels) - 1, kind = "unordered",
                labels = labels))
  }
  if (!is.numeric(values) || !is.null(dim(values)) && length(dim(values)) > 1L) {
    stop_cdens(sprintf(paste("column '%s' is of class %s: the engine reads numbers, factors,",
                             "ordered factors, characters and logicals"),
                       name, paste(class(values), collapse = "/")))
  }
  list(name = name, values = as.numeric(values), kind = "continuous", labels = NULL)
}

# The numeric matrix of `columns` (one column each).
matrix_of <- function(columns) {
  values <- vapply(columns, function(column) column$values, numeric(length(columns[[1L]]$values)))
  matrix(values, ncol = length(columns), dimnames = list(NULL, names_of(columns)))
}

names_of <- function(columns) vapply(columns, `[[`, "", "name")

# The labels of the labelled columns, by name.
labels_of <- function(columns) {
  labelled <- Filter(function(column) !is.null(column$labels), columns)
  stats::setNames(lapply(labelled, `[[`, "labels"), names_of(labelled))
}

# The columns of a query by the names of a model's variables, coded with the model's labels: a
# label the model does not know is an error for an input and no level of the model (probability
# 0, code = the number of labels) for an output.
coded_query <- function(frame, names, labels, output = FALSE) {
  missing <- setdiff(names, names(frame))
  if (length(missing)) {
    stop_cdens(sprintf("newdata lacks the column%s %s the model was fitted on",
                       if (length(missing) > 1L) "s" else "",
                       paste0("'", missing, "'", collapse = ", ")))
  }
  values <- lapply(names, function(name) {
    column <- frame[[name]]
    known <- labels[[name]]
    if (is.null(known)) {
      if (!is.numeric(column)) {
        stop_cdens(sprintf("column '%s' of newdata holds %s where the model was fitted on numbers",
                           name, class(column)[1L]))
      }
      return(as.numeric(column))
    }
    text <- as.character(column)
    codes <- match(text, known) - 1
    unknown <- which(is.na(codes) & !is.na(text))
    if (length(unknown)) {
      if (!output) {
        stop_cdens(sprintf("row %d: label '%s' of column '%s' is not one of its levels (%s)",
                           unknown[1L], text[unknown[1L]], name, paste(known, collapse = ", ")))
      }
      codes[unknown] <- length(known)
    }
    codes
  })
  matrix(unlist(values), ncol = length(names), dimnames = list(NULL, names))
}

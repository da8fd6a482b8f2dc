# The engine's options of a fit from the arguments of the method functions, which are the
# options' R names (the option's name; `n_jobs` for the thread count). NULL leaves an option at
# the method's own choice where the registry spells its default so (a paper's grid, a size chosen
# from the data); a NULL seed draws one from R's random numbers (so set.seed() makes a fit
# repeatable); a NULL or -1 n_jobs is every free core. Columns are given by name or by position (from
# 1) among the inputs, then the outputs. The engine checks every value against the option's form
# and range and names the R argument when it refuses one.

# A seed for the engine from R's random numbers: a whole number below 2^53.
draw_seed <- function() {
  parts <- floor(stats::runif(2L) * 2^26)
  parts[1L] * 2^26 + parts[2L]
}

# {option name: value} of `entry`'s options from `arguments`, a named list by R name; an option
# not in it keeps its default (but a seed is drawn from R's random numbers). `column_names` are
# the names of the inputs, then the outputs; the discrete and ordered columns the data declare
# (`declared`, by option name) are added to those the arguments name.
engine_options <- function(entry, arguments, column_names = character(), declared = list()) {
  options <- entry$options[vapply(entry$options, `[[`, TRUE, "offered")]
  r_names <- vapply(options, `[[`, "", "r_name")
  unknown <- setdiff(names(arguments), r_names)
  if (length(unknown)) {
    stop_cdens(sprintf("method %s has no argument %s (its options: %s)", entry$name,
                       paste0("'", unknown, "'", collapse = ", "), paste(r_names, collapse = ", ")))
  }
  values <- list()
  for (option in options) {
    given <- option$r_name %in% names(arguments)
    value <- arguments[[option$r_name]]
    if (option$type == "seed") {
      value <- if (is.null(value)) draw_seed() else value
    } else if (option$type == "threads") {
      if (is.null(value) || identical(as.numeric(value), -1)) next
    } else if (option$type == "columns") {
      value <- c(column_positions(value, column_names, option$r_name), declared[[option$name]])
      if (!length(value)) next
      value <- sort(unique(value))
    } else if (is.null(value)) {
      if (given && !option$none_is_default) {
        stop_cdens(sprintf("%s must not be NULL", option$r_name))
      }
      next
    }
    values[[option$name]] <- value
  }
  values
}

# 0-based positions of columns given by name or by 1-based position among `column_names`.
column_positions <- function(columns, column_names, argument) {
  if (is.null(columns) || !length(columns)) return(numeric())
  if (is.character(columns)) {
    unknown <- setdiff(columns, column_names)
    if (length(unknown)) {
      stop_cdens(sprintf("%s: %s %s none of the columns (%s)", argument,
                         paste0("'", unknown, "'", collapse = ", "),
                         if (length(unknown) > 1L) "are" else "is",
                         paste(column_names, collapse = ", ")))
    }
    return(match(columns, column_names) - 1)
  }
  if (!is.numeric(columns) || any(columns != round(columns)) || any(columns < 1) ||
      any(columns > length(column_names))) {
    stop_cdens(sprintf("%s: columns are names or positions from 1 to %d", argument,
                       length(column_names)))
  }
  columns - 1
}

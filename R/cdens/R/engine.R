# The compiled engine's registry of methods, and the conditions the package raises. Every method
# function, its arguments and defaults come from the registry (tools/generate.R writes them at
# build time); the registry read here at run time is the same one, so a fit checks its arguments
# against the options the engine actually has.

.cache <- new.env(parent = emptyenv())

# Every method of the engine, by name (man/cdens_methods.Rd).
cdens_methods <- function() {
  if (is.null(.cache$methods)) {
    methods <- .Call(C_cdens_methods)
    names(methods) <- vapply(methods, `[[`, "", "name")
    .cache$methods <- methods
  }
  .cache$methods
}

cdens_version <- function() .Call(C_cdens_version)

# The copy of the engine's vector loops that runs: "native" (built for this CPU), or of a portable
# build the widest of "baseline", "avx2", "avx512" the CPU has (the environment variable CDENS_ISA
# chooses another), as cdens --version and Python's cdens.vector_instruction_set() say.
cdens_vector_instruction_set <- function() .Call(C_cdens_vector_instruction_set)

# The registry entry of method `name` of one of `families`; an R error listing them otherwise.
method_entry <- function(name, families = c("conditional", "regression", "density")) {
  methods <- cdens_methods()
  known <- names(methods)[vapply(methods, function(m) m$family %in% families, TRUE)]
  if (!is.character(name) || length(name) != 1L || !(name %in% known)) {
    stop_cdens(sprintf("method must be one of %s, not %s", paste(known, collapse = ", "),
                       deparse1(name)))
  }
  methods[[name]]
}

# A condition of class c(class, "cdens_error", "error", "condition"), as the engine raises them.
cdens_condition <- function(message, class, call = NULL, type = "error") {
  structure(class = c(class, paste0("cdens_", type), type, "condition"),
            list(message = message, call = call))
}

stop_cdens <- function(message, class = "cdens_invalid_argument", call = NULL) {
  stop(cdens_condition(message, class, call))
}

# A warning of class c(class, "cdens_warning", "warning", "condition"): a fit's warnings
# ("cdens_fit_warning") and queries of inputs beyond the data ("cdens_extrapolation_warning").
warn_cdens <- function(message, class = "cdens_fit_warning") {
  warning(cdens_condition(message, class, type = "warning"))
}

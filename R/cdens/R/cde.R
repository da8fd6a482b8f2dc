# The two front doors: cde() fits any conditional (or regression) method of the registry, kde()
# any density method, each with the method's options as further named arguments. The method
# functions cde_<method>() and kde_<method>() (generated from the registry, R/generated_methods.R)
# take the same options as named, documented arguments with their defaults.

cde <- function(x, y = NULL, data = NULL, method = "auto", ..., weights = NULL, subset = NULL,
                na.action = NULL, verbose = FALSE) {
  entry <- method_entry(method, c("conditional", "regression"))
  fit_method(entry$name, match.call(), parent.frame(), named_options(list(...)), verbose)
}

kde <- function(x, data = NULL, method = "parzen", ..., weights = NULL, subset = NULL,
                na.action = NULL, verbose = FALSE) {
  entry <- method_entry(method, "density")
  fit_method(entry$name, match.call(), parent.frame(), named_options(list(...)), verbose)
}

named_options <- function(options) {
  if (length(options) && (is.null(names(options)) || any(names(options) == ""))) {
    stop_cdens("a method's options are named arguments (sigma = 0.5)")
  }
  options
}

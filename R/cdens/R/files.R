# Model files: the versioned JSON files of the cdens command (cdens fit --out) and the Python
# package (estimator.save, cdens.load), written atomically. A model read back answers every
# query as the saved one did, bit for bit, in R, Python and the command alike.

cdens_save <- function(model, file) {
  if (!inherits(model, "cdens_model")) stop_cdens("model must be a fit of cdens")
  .Call(C_cdens_save_model, model$model, path.expand(file))
  invisible(file)
}

# A fitted object from a model file: the method and variables the file names, their labels as
# the levels of factors. It has no formula and no training data: predict() needs newdata, with
# the columns of the model's variables by name (or a matrix in their order).
cdens_load <- function(file) {
  loaded <- .Call(C_cdens_load_model, path.expand(file))
  info <- if (loaded$shape == "gaussian_mixture") {
    .Call(C_cdens_density_info, loaded$model)
  } else {
    .Call(C_cdens_conditional_info, loaded$model)
  }
  entry <- cdens_methods()[[info$method]]
  if (is.null(entry)) stop_cdens(sprintf("the file's method '%s' is unknown", info$method))
  object <- model_object(loaded$model, entry)
  object$file <- file
  object
}

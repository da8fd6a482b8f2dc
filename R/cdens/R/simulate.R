# Draws from fitted models with R's simulate(): the engine's draws seeded from R's random numbers,
# so that set.seed() (or simulate's own seed) makes them repeatable; the result carries the seed
# attribute R's simulate methods give.

# The RNG state simulate() restores and reports, as stats:::simulate.lm does; the engine's seed
# is then drawn from R's generator.
with_simulation_seed <- function(seed, draw) {
  if (!exists(".Random.seed", envir = .GlobalEnv, inherits = FALSE)) stats::runif(1)
  if (is.null(seed)) {
    state <- get(".Random.seed", envir = .GlobalEnv)
  } else {
    saved <- get(".Random.seed", envir = .GlobalEnv)
    on.exit(assign(".Random.seed", saved, envir = .GlobalEnv))
    set.seed(seed)
    state <- structure(seed, kind = as.list(RNGkind()))
  }
  structure(draw(draw_seed()), seed = state)
}

# nsim draws of y given each row of newdata (the training inputs without it): a data frame of
# nsim columns sim_1, sim_2, ... for a one-dimensional y (factors for a y of labels), an array
# rows x nsim x d_y otherwise.
simulate.cdens_cde <- function(object, nsim = 1, seed = NULL, newdata = NULL, ...) {
  x <- query_rows(object, newdata)$x
  if (anyNA(x)) stop_cdens("newdata has missing values: draws need every input")
  with_simulation_seed(seed, function(engine_seed) {
    draws <- .Call(C_cdens_sample, object$model, x, nsim, engine_seed)
    d <- object$output_dim
    # Rows j * nsim + (0 ... nsim - 1) are drawn given x_j.
    values <- aperm(array(draws, c(nsim, nrow(x), d)), c(2L, 1L, 3L))
    if (d > 1L) {
      dimnames(values) <- list(NULL, paste0("sim_", seq_len(nsim)), object$y_names)
      return(values)
    }
    labels <- output_labels(object)
    columns <- lapply(seq_len(nsim), function(k) {
      if (is.null(labels)) values[, k, 1L] else
        as_labels(values[, k, 1L], labels, object$output_kinds == "ordered")
    })
    stats::setNames(as.data.frame(columns), paste0("sim_", seq_len(nsim)))
  })
}

# nsim draws of a fitted density: a matrix of nsim rows, one column per dimension.
simulate.cdens_kde <- function(object, nsim = 1, seed = NULL, ...) {
  with_simulation_seed(seed, function(engine_seed) {
    values <- .Call(C_cdens_density_sample, object$model, nsim, engine_seed)
    colnames(values) <- object$x_names
    values
  })
}

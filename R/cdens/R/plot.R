# Plots of fitted models with base graphics: p(y|x) as a heat map over (x, y) with the data on
# top, or as curves at chosen inputs; a density p(x) as a curve over the data's histogram (one
# dimension) or as contours over its points (two).

plot.cdens_cde <- function(x, type = c("map", "curves"), newdata = NULL, across = 1, at = NULL,
                           y_grid = NULL, n_grid = 100, ...) {
  type <- match.arg(type)
  if (x$output_dim != 1L || x$output_kinds != "continuous") {
    stop_cdens("plot() draws p(y|x) of one continuous output")
  }
  inputs <- if (type == "curves" && !is.null(newdata)) query_rows(x, newdata)$x else
    slice_inputs(x, across, at, n_grid)
  if (is.null(y_grid)) y_grid <- default_y_grid(x, inputs, n_grid)
  density <- .Call(C_cdens_pdf_grid, x$model, inputs, matrix(y_grid, ncol = 1L))
  if (type == "curves") {
    graphics::matplot(y_grid, t(density), type = "l", lty = 1, xlab = x$y_names,
                      ylab = sprintf("p(%s | x)", x$y_names), ...)
    labels <- apply(inputs, 1L, function(row) {
      paste(sprintf("%s = %s", x$x_names, format(row, digits = 4)), collapse = ", ")
    })
    graphics::legend("topright", legend = labels, lty = 1, col = seq_len(nrow(inputs)),
                     bty = "n", cex = 0.8)
    return(invisible(density))
  }
  column <- across_column(x, across)
  # A raster where y's grid is regular (the input's is): cells drawn one by one leave seams in
  # bitmap devices.
  steps <- diff(y_grid)
  regular <- length(steps) < 2L || max(abs(steps - mean(steps))) <= 1e-9 * abs(mean(steps))
  graphics::image(inputs[, column], y_grid, density, col = grDevices::hcl.colors(64, "viridis"),
                  xlab = x$x_names[column], ylab = x$y_names, useRaster = regular, ...)
  if (!is.null(x$train_x)) {
    graphics::points(x$train_x[, column], x$train_y[, 1L], pch = 20, cex = 0.5, col = "white")
  }
  others <- setdiff(seq_len(ncol(inputs)), column)
  if (length(others)) {
    graphics::title(sub = paste("at", paste(sprintf("%s = %s", x$x_names[others],
                                                    format(inputs[1L, others], digits = 4)),
                                            collapse = ", ")))
  }
  invisible(density)
}

across_column <- function(x, across) {
  column <- if (is.character(across)) match(across, x$x_names) else across
  if (length(column) != 1L || is.na(column) || column < 1L || column > length(x$x_names)) {
    stop_cdens(sprintf("across must name one input (%s) or give its position",
                       paste(x$x_names, collapse = ", ")))
  }
  column
}

# n inputs along input `across` over its training range, every other input at `at` (a named
# list), by default its median (its most frequent code for a discrete input).
slice_inputs <- function(x, across, at, n) {
  column <- across_column(x, across)
  range <- if (!is.null(x$train_x)) range(x$train_x[, column]) else
    c(x$input_range$lower[column], x$input_range$upper[column])
  inputs <- matrix(NA_real_, n, length(x$x_names), dimnames = list(NULL, x$x_names))
  inputs[, column] <- seq(range[1L], range[2L], length.out = n)
  for (other in setdiff(seq_along(x$x_names), column)) {
    name <- x$x_names[other]
    value <- at[[name]]
    if (is.null(value)) {
      if (is.null(x$train_x)) {
        stop_cdens(sprintf("give the value of '%s' in at = list(...)", name))
      }
      values <- x$train_x[, other]
      value <- if (name %in% names(x$labels)) {
        as.numeric(names(which.max(table(values))))
      } else {
        stats::median(values)
      }
    } else if (name %in% names(x$labels)) {
      value <- match(as.character(value), x$labels[[name]]) - 1
    }
    inputs[, other] <- value
  }
  inputs
}

# The outputs from the 0.5 % to the 99.5 % quantile over the inputs, widened by a tenth.
default_y_grid <- function(x, inputs, n) {
  bounds <- .Call(C_cdens_quantiles, x$model, inputs, c(0.005, 0.995))
  low <- min(bounds[, 1L])
  high <- max(bounds[, 2L])
  seq(low - 0.1 * (high - low), high + 0.1 * (high - low), length.out = n)
}

plot.cdens_kde <- function(x, n_grid = 200, ...) {
  if (x$dimension > 2L) stop_cdens("plot() draws a density of one or two dimensions")
  ranges <- lapply(seq_len(x$dimension), function(d) {
    spread <- 4 * max(x$scales[, d])
    values <- c(x$centers[, d] - spread, x$centers[, d] + spread)
    seq(min(values), max(values), length.out = n_grid)
  })
  if (x$dimension == 1L) {
    grid <- ranges[[1L]]
    density <- exp(.Call(C_cdens_density_log_pdf, x$model, matrix(grid, ncol = 1L)))
    if (!is.null(x$train_x)) {
      graphics::hist(x$train_x[, 1L], freq = FALSE, main = "", xlab = x$x_names,
                     ylim = c(0, max(density)), col = "grey90", border = "grey70", ...)
      graphics::lines(grid, density, lwd = 2)
    } else {
      plot(grid, density, type = "l", lwd = 2, xlab = x$x_names, ylab = "density", ...)
    }
    return(invisible(density))
  }
  points <- as.matrix(expand.grid(ranges[[1L]], ranges[[2L]]))
  density <- matrix(exp(.Call(C_cdens_density_log_pdf, x$model, points)), n_grid)
  graphics::contour(ranges[[1L]], ranges[[2L]], density, xlab = x$x_names[1L],
                    ylab = x$x_names[2L], ...)
  if (!is.null(x$train_x)) {
    graphics::points(x$train_x[, 1L], x$train_x[, 2L], pch = 20, cex = 0.5)
  }
  invisible(density)
}

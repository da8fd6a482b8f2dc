#pragma once
// The linear-Gaussian conditional density, the baseline every conditional estimator is compared
// with (docs/methods/linear.md):
//
//   y | x ~ N(a + A x, diag s²)
//
// fitted by least squares on standardised x and y, with the maximum-likelihood variance of the
// residuals of each output. As a conditional mixture: trend A, one component N(a, diag s²)
// behind a constant gate. Its leave-one-out likelihood has a closed form (the PRESS residuals
// e_i / (1 − h_ii) of the hat matrix), which is what the kernel estimators are compared with.

#include "cdens/conditional/kernel_cde.hpp"

namespace cdens {

/// Options of fit_linear_gaussian: none (least squares has no tuning parameter); the struct
/// gives the method the same shape as every other in the registry.
struct LinearGaussianOptions {};

/// Fits the linear-Gaussian model to the pairs (x_i, y_i): x is d_x × n, y is d_y × n, with
/// n ≥ d_x + 3. The report (method "linear") holds the leave-one-out NLL in the user's units
/// ("loo_nll", mean over pairs of −log p̂_{−i}(y_i | x_i), each from the least-squares fit and
/// variance without pair i), unless some pair has leverage 1. An output that is an exact linear
/// function of x gets a residual scale of 1e-10 of its standard deviation and a warning.
KernelCdeFit fit_linear_gaussian(const MatrixView& x, const MatrixView& y,
                                 const LinearGaussianOptions& options = {},
                                 const FitContext& context = {});

/// The leave-one-out NLL of the linear-Gaussian model on standardised pairs, in standardised
/// units (+∞ where a pair has leverage 1, so that the model without it is not determined).
double linear_gaussian_loo_nll(const StandardizedSamples& pairs);

/// Least squares t ≈ a + A z on standardised pairs: (a, A) as the columns of a d_y × (1 + d_x)
/// matrix.
Matrix least_squares_coefficients(const StandardizedSamples& pairs);

}  // namespace cdens

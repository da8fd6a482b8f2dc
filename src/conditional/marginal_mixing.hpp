#pragma once
// KCDE's mixing with its marginal counterpart (docs/methods/kcde.md, "Marginal mixing"; a
// departure from Hall, Racine & Li 2004):
//
//   p̃(y|x) = (1 − ε) p̂(y|x) + ε p̂₀(y|x),  p̂₀(y|x) = (1/n) Σ_i N(y; y_i, diag h_y²),
//
// the same components with equal weights (with the linear trend, the kernels of the residuals
// around the line at x). A test pair whose neighbours in x all have distant outputs — an outlier
// in y, a car with a diesel engine among petrol ones — gets density from p̂₀ instead of from the
// Gaussian tail of its nearest component alone: its log density is bounded below by log ε p̂₀.
// ε is chosen by the same leave-one-out likelihood as the bandwidths, at those bandwidths, and is
// at least 1/n: leave-one-out cannot see an outlier the training pairs lack, and the floor bounds
// a new one's NLL by log n − log p̂₀(y) at a cost below −log(1 − 1/n) ≈ 1/n nats per pair.

#include <string>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The ε ∈ [minimum, 1] maximising the mean over i of log((1 − ε) exp(a_i) + ε exp(b_i)), with a
/// the leave-one-out log densities of the estimate (`log_conditional`) and b those of its
/// marginal counterpart (`log_marginal`), both finite and of the same length ≥ 1. The mean is
/// concave in ε, so its derivative is bisected; InvalidArgument for lengths that differ,
/// non-finite values or a minimum outside [0, 1]. With sample weights c (one per log density;
/// empty: all 1) the mean is the c-weighted one.
double best_mixing_weight(const VectorView& log_conditional, const VectorView& log_marginal,
                          double minimum, const Vector& weights = Vector());

/// log((1 − ε) exp(a_i) + ε exp(b_i)) for every i: the mixture's leave-one-out log densities.
Vector mixed_log_densities(const VectorView& log_conditional, const VectorView& log_marginal,
                           double weight);

/// The mean over i of −log((1 − ε) exp(a_i) + ε exp(b_i)): the leave-one-out NLL of the mixture
/// (the c-weighted mean with sample weights c, empty: all 1).
double mixed_negative_log_likelihood(const VectorView& log_conditional,
                                     const VectorView& log_marginal, double weight,
                                     const Vector& weights = Vector());

}  // namespace cdens

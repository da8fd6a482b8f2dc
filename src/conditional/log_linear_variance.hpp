#pragma once
// The heteroscedastic linear-Gaussian regression of one standardised output t on the inputs z,
//
//   t_i ~ N(βᵀu_i, exp(2 γᵀu_i)),  u_i = (1, z_iᵀ)ᵀ,
//
// (a linear mean and a log-linear standard deviation, Harvey 1976) by maximum likelihood, and its
// leave-one-out NLL by one Newton step per pair from the full fit (docs/methods/linear.md).

#include <string>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

struct LogLinearVarianceFit {
  Vector location;   ///< β: intercept, then one slope per input
  Vector log_scale;  ///< γ: log of the intercept's scale, then one slope per input
  /// −log p_{−i}(t_i | z_i) of every pair in standardised units; empty where the fit is
  /// degenerate.
  Vector loo_terms;
  /// Their mean (weighted by the sample weights); +∞ where the fit is degenerate.
  double loo_nll = 0.0;
  /// Why the fit is not usable (empty when it is): no convergence, or a spread that collapses
  /// onto some pairs (ties in t among pairs with similar inputs make the likelihood unbounded).
  std::string problem;
};

/// Fits the model by Newton steps with step halving from the constant-variance least-squares
/// fit. `design` is n × (1 + d_x) with rows u_iᵀ (a leading column of ones), `t` holds the n
/// outputs. With sample weights c (n positive numbers; empty: all 1) the likelihood is
/// Σ c_i log p(t_i | z_i), the leave-one-out terms drop pair i with all its weight and
/// `loo_nll` is their c-weighted mean. On several ranks of `communicator`, `design`, `t` and the
/// weights are this rank's pairs and the fit is that of every rank's (the same on every rank; a
/// collective call); `loo_terms` are this rank's pairs'.
LogLinearVarianceFit fit_log_linear_variance(
    const Matrix& design, const VectorView& t, const Vector& sample_weights = Vector(),
    const Communicator& communicator = local_communicator());

/// Whether the leave-one-out terms of n pairs are one Newton step from the full fit (else each
/// is refitted without its pair, which needs every pair on one process).
bool one_step_leave_one_out(Index n);

}  // namespace cdens::detail

#pragma once
// The linear-Gaussian model's pieces that the kernel estimators reuse on their standardised
// pairs: the baseline's leave-one-out NLL and the least-squares trend (linear.cpp).

#include "cdens/core/communicator.hpp"
#include "conditional/kernel_cde_engine.hpp"

namespace cdens {

/// The leave-one-out NLL of the default linear-Gaussian model (each output's spread chosen) on
/// standardised pairs, in standardised units (+∞ where neither spread gives one: a pair with
/// leverage 1, so that the model without it is not determined). With sample weights (one per
/// pair; empty: none) the fit and its criterion are weighted as fit_linear's. On several
/// ranks of `communicator` (this rank's pairs, unweighted) the NLL of every rank's pairs, the
/// same on every rank (a collective call).
double linear_gaussian_loo_nll(const StandardizedSamples& pairs, const Vector& weights = Vector(),
                               const Communicator& communicator = local_communicator());

/// Least squares t ≈ a + A z on standardised pairs: (a, A) as the columns of a d_y × (1 + d_x)
/// matrix; weighted least squares with sample weights (empty: none). On several ranks of
/// `communicator` (this rank's pairs, unweighted) the normal equations of every rank's pairs (a
/// collective call).
Matrix least_squares_coefficients(const StandardizedSamples& pairs,
                                  const Vector& weights = Vector(),
                                  const Communicator& communicator = local_communicator());

}  // namespace cdens

#pragma once
// The free parameters θ of logistic PRESS and the coefficients B they stand for (§4, §4.4).
//
// Identifiability (§4): the J coefficient vectors sum to zero, so θ holds β_1 … β_{J−1} and
// β_J = −Σ_{j<J} β_j. LASSO (eq. 38): the ℓ1 penalty λ‖θ_X‖₁ acts on the coefficients of x (not
// the intercepts) of the J − 1 free vectors. It is made smooth by the standard split
// θ_X = θ⁺ − θ⁻ with θ⁺, θ⁻ ≥ 0 and penalty λ Σ (θ⁺ + θ⁻), a bound-constrained problem with
// the same minimisers, which L-BFGS with bounds solves exactly (coefficients end at 0, not near
// it). Without LASSO θ is unconstrained.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

class PressParametrization {
 public:
  /// `design_dim` = d + 1 (intercept and d inputs), J ≥ 2 states; `lasso_weight` λ ≥ 0
  /// (λ > 0 splits the coefficients of x into positive and negative parts).
  PressParametrization(Index design_dim, Index n_states, double lasso_weight);

  Index n_states() const { return n_states_; }
  Index design_dim() const { return design_dim_; }
  /// Number of entries of θ: (d + 1)(J − 1), or (2d + 1)(J − 1) with LASSO.
  Index size() const;
  /// Lower bounds of θ: −∞, or 0 for the split parts.
  std::vector<double> lower_bounds() const;

  /// B ((d + 1) × J) from θ.
  Matrix coefficients(const VectorView& theta) const;
  /// θ for coefficients B whose columns sum to zero (the split puts each coefficient in the
  /// part of its sign).
  Vector parameters(const MatrixView& coefficients) const;
  /// λ‖θ_X‖₁ = λ Σ (θ⁺ + θ⁻); 0 without LASSO.
  double penalty(const VectorView& theta) const;
  /// ∂(F(B(θ)) + penalty(θ))/∂θ from ∂F/∂B ((d + 1) × J).
  Vector gradient(const MatrixView& coefficient_gradient) const;

 private:
  Index design_dim_;
  Index n_states_;
  double lasso_weight_;
};

}  // namespace cdens

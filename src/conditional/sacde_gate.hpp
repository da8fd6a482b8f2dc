#pragma once
// SA-CDE as a conditional mixture. The renormalised additive estimate (eqs. 3–6, 20–21) is
//
//   p̂(y|x) = Σ_d Σ_b α_{d,b} η_b(y) φ_{d,b}(x_d) / ((√(2π) σ)^{D_y} Σ_d Σ_b α_{d,b} φ_{d,b}(x_d))
//          = Σ_b w_b(x) N(y; ν_b, σ² I) / Σ_b w_b(x),   w_b(x) = Σ_d α_{d,b} φ_{d,b}(x_d),
//
// because η_b(y) = (√(2π) σ)^{D_y} N(y; ν_b, σ² I). So the gate is w_b(x) and the components
// are N(ν_b, σ² I).

#include <memory>
#include <nlohmann/json_fwd.hpp>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "conditional/sacde_system.hpp"

namespace cdens {

class SaCdeGate final : public ConditionalGate {
 public:
  /// `centers_x` holds μ_{d,b} (D × B), `alpha` the coefficients α_{d,b} ≥ 0 (D × B).
  SaCdeGate(Matrix centers_x, Matrix alpha, double sigma);

  std::string kind() const override { return "sacde"; }
  Index input_dim() const override { return centers_x_.rows(); }
  Index n_components() const override { return centers_x_.cols(); }
  /// log Σ_d α_{d,b} exp(−(x_d − μ_{d,b})²/2σ²), by log-sum-exp over d.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// log Σ_d α_{d,b}, or equal weights when every α is zero.
  Vector log_marginal_weights() const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const SaCdeGate> from_json(const nlohmann::json& document);

  const Matrix& centers_x() const { return centers_x_; }
  const Matrix& alpha() const { return alpha_; }
  double sigma() const { return sigma_; }

 private:
  Matrix centers_x_;
  Matrix alpha_;
  double sigma_;
};

/// The SA-CDE estimate with stacked coefficients α (D·B, group d at d·B … d·B + B − 1) as a
/// conditional mixture. Components b with α_{·,b} = 0 are dropped; if every α is zero, all are
/// kept and the mixture falls back to equal weights (the kernel density estimate of y).
ConditionalMixture make_sacde_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const SaCdeBasis& basis, const VectorView& alpha);

}  // namespace cdens

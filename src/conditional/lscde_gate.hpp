#pragma once
// LSCDE as a conditional mixture. With the basis of eq. (9), the renormalised estimate (eq. 8)
//
//   p̂(y|x) = Σ_l α̂_l φ_l(x, y) / ∫ Σ_l α̂_l φ_l(x, y') dy'
//          = Σ_l α̂_l exp(−‖x − u_l‖²/2σ²) N(y; v_l, σ² I) / Σ_l α̂_l exp(−‖x − u_l‖²/2σ²),
//
// because exp(−‖y − v_l‖²/2σ²) = (√(2π) σ)^{d_y} N(y; v_l, σ² I) and the constant cancels. So the
// gate is w_l(x) = α̂_l exp(−‖x − u_l‖²/2σ²) and the components are N(v_l, σ² I).

#include <memory>
#include <nlohmann/json_fwd.hpp>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "conditional/lscde_basis.hpp"

namespace cdens {

class LscdeGate final : public ConditionalGate {
 public:
  /// `centers_x` is d_x × b, `alpha` holds b non-negative coefficients α̂.
  LscdeGate(Matrix centers_x, Vector alpha, double sigma);

  std::string kind() const override { return "lscde"; }
  Index input_dim() const override { return centers_x_.rows(); }
  Index n_components() const override { return alpha_.size(); }
  /// log α̂_l − ‖x − u_l‖² / 2σ².
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// log α̂_l, or equal weights when every α̂_l is zero.
  Vector log_marginal_weights() const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const LscdeGate> from_json(const nlohmann::json& document);

  const Matrix& centers_x() const { return centers_x_; }
  const Vector& alpha() const { return alpha_; }
  double sigma() const { return sigma_; }

 private:
  Matrix centers_x_;
  Vector alpha_;
  double sigma_;
};

/// The LSCDE estimate with coefficients α̂ (b values ≥ 0) as a conditional mixture. Basis
/// functions with α̂_l = 0 are dropped (the sparsity eq. 7 buys); if all are zero, all are kept
/// and the mixture falls back to equal weights.
ConditionalMixture make_lscde_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const LscdeBasis& basis, const VectorView& alpha);

}  // namespace cdens

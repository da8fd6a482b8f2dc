#pragma once
// Conditional models of x through a linear projection z = A x + c of their (standardised)
// inputs: the fitted shape of LSCE and of the LSMI two-step estimators (docs/methods/lsce.md).
// The gate of a model fitted on z is kept as it is and sees A x + c; the components are
// unchanged, so every query of the conditional mixture works on x without being rewritten.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

/// w_k(x) = w_k^inner(A x + c) for an inner gate on d_z-dimensional inputs.
class ProjectedGate final : public ConditionalGate {
 public:
  /// `projection` A is d_z × d_x, `offset` c has d_z entries, `inner` takes d_z inputs.
  ProjectedGate(Matrix projection, Vector offset, std::shared_ptr<const ConditionalGate> inner);

  std::string kind() const override { return "projected"; }
  Index input_dim() const override { return projection_.cols(); }
  Index n_components() const override { return inner_->n_components(); }
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override { return inner_->log_marginal_weights(); }
  /// {"projection": A, "offset": c, "inner": inner gate with its "kind"}.
  nlohmann::json to_json() const override;
  /// The gate written by to_json(); the inner gate is read by `read_gate`.
  static std::shared_ptr<const ProjectedGate> from_json(const nlohmann::json& document,
                                                        const GateReader& read_gate);

  const Matrix& projection() const { return projection_; }
  const Vector& offset() const { return offset_; }
  const ConditionalGate& inner() const { return *inner_; }

 private:
  Matrix projection_;
  Vector offset_;
  std::shared_ptr<const ConditionalGate> inner_;
};

/// The model p(y | x) = p_z(y | z = W x̄) of inputs x whose standardisation by `x_scaling` is x̄,
/// where `on_z` is a conditional model fitted on z = W x̄ (W: d_z × d_x). The gate of `on_z` is
/// wrapped in a ProjectedGate with A = diag(1/s_z) W and c = −m_z/s_z, folding in the
/// standardisation (m_z, s_z) that `on_z` applies to z; its output scaling and components are
/// kept.
ConditionalMixture project_inputs(const Standardizer& x_scaling, const Matrix& w,
                                  const ConditionalMixture& on_z);

}  // namespace cdens

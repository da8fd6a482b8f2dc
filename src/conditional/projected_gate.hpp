#pragma once
// Conditional models of x through a linear projection z = W x of their (standardised) inputs:
// the fitted shape of LSCE and of the LSMI two-step estimators (docs/methods/lsce.md). The gate
// of a model fitted on z is kept as it is and sees z, standardised as that model standardised
// it; the components are unchanged, so every query of the conditional mixture works on x without
// being rewritten.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

/// w_k(x) = w_k^inner((W x − m_z) / s_z) for an inner gate on d_z-dimensional inputs, with the
/// standardisation (m_z, s_z) of the model fitted on z.
class ProjectedGate final : public ConditionalGate {
 public:
  /// `projection` W is d_z × d_x; `z_scaling` and `inner` work on d_z inputs.
  ProjectedGate(Matrix projection, Standardizer z_scaling,
                std::shared_ptr<const ConditionalGate> inner);

  std::string kind() const override { return "projected"; }
  Index input_dim() const override { return projection_.cols(); }
  Index n_components() const override { return inner_->n_components(); }
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override { return inner_->log_marginal_weights(); }
  bool weights_can_all_vanish() const override { return inner_->weights_can_all_vanish(); }
  /// {"projection": W, "z_scaling": (m_z, s_z), "inner": inner gate with its "kind"}.
  nlohmann::json to_json() const override;
  /// The gate written by to_json(); the inner gate is read by `read_gate`.
  static std::shared_ptr<const ProjectedGate> from_json(const nlohmann::json& document,
                                                        const GateReader& read_gate);

  const Matrix& projection() const { return projection_; }
  const Standardizer& z_scaling() const { return z_scaling_; }
  const ConditionalGate& inner() const { return *inner_; }

 private:
  Matrix projection_;
  Standardizer z_scaling_;
  std::shared_ptr<const ConditionalGate> inner_;
};

/// The model p(y | x) = p_z(y | z = W x̄) of inputs x whose standardisation by `x_scaling` is x̄,
/// where `on_z` is a conditional model fitted on z = W x̄ (W: d_z × d_x). The gate of `on_z` is
/// wrapped in a ProjectedGate with W and the standardisation that `on_z` applies to z; its output
/// scaling and components are kept.
ConditionalMixture project_inputs(const Standardizer& x_scaling, const Matrix& w,
                                  const ConditionalMixture& on_z);

/// W (d_z × d_x) of a model whose gate projects its standardised inputs (LSCE, LSMI), over all
/// its inputs: a fit that ignored constant inputs (a SelectedFeaturesGate around the projection)
/// has a zero column for each. An empty matrix for a model that projects nothing.
Matrix input_projection(const ConditionalMixture& model);

}  // namespace cdens

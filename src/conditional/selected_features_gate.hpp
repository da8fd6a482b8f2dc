#pragma once
// A gate that looks at some input features only: w_k(x) = w'_k(x_S) for the features S, with
// w' the gate of a model fitted on x_S. SA-LSCDE (LSCDE on the features SA-CDE keeps) and
// forward selection (any estimator on the features it adds) build their models this way, so the
// fitted model takes every input feature and ignores the dropped ones.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

class SelectedFeaturesGate final : public ConditionalGate {
 public:
  /// `features`: distinct indices into the `input_dim` inputs, as many as `inner` takes.
  SelectedFeaturesGate(Index input_dim, std::vector<Index> features,
                       std::shared_ptr<const ConditionalGate> inner);

  std::string kind() const override { return "selected_features"; }
  Index input_dim() const override { return input_dim_; }
  Index n_components() const override { return inner_->n_components(); }
  /// The inner gate's weights of the rows `features` of x.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override { return inner_->log_marginal_weights(); }
  bool weights_can_all_vanish() const override { return inner_->weights_can_all_vanish(); }
  /// The inner gate's discrete inputs, as positions among all `input_dim` inputs.
  std::vector<Index> discrete_inputs() const override;
  /// {"input_dim", "features", "inner": {"kind", "parameters"}}.
  nlohmann::json to_json() const override;
  /// Reads the gate back; the inner gate through `read_gate`.
  static std::shared_ptr<const SelectedFeaturesGate> from_json(const nlohmann::json& document,
                                                               const GateReader& read_gate);

  const std::vector<Index>& features() const { return features_; }
  const ConditionalGate& inner() const { return *inner_; }

 private:
  Index input_dim_;
  std::vector<Index> features_;
  std::shared_ptr<const ConditionalGate> inner_;
};

/// `inner`, fitted on the rows `features` of inputs with `input_dim` features, as a model of all
/// of them: its gate wrapped in a SelectedFeaturesGate (and its trend in a SelectedFeaturesTrend),
/// its output kernels kept, and its standardisation spread over the full input, with `x_scaling`
/// (fitted on every feature) for the dropped features. The densities equal inner's on x_S bit for
/// bit.
ConditionalMixture model_on_all_features(const ConditionalMixture& inner,
                                         const std::vector<Index>& features,
                                         const Standardizer& x_scaling);

}  // namespace cdens

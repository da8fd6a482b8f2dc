#include "conditional/selected_features_gate.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "core/selected_features.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {

SelectedFeaturesGate::SelectedFeaturesGate(Index input_dim, std::vector<Index> features,
                                           std::shared_ptr<const ConditionalGate> inner)
    : input_dim_(input_dim), features_(std::move(features)), inner_(std::move(inner)) {
  if (!inner_) throw InvalidArgument("selected-features gate: no inner gate");
  require_selected_features(features_, input_dim_, inner_->input_dim(), "selected-features gate");
}

void SelectedFeaturesGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  const Matrix selected = x(features_, Eigen::all);
  inner_->log_weights(selected, out);
}

std::vector<Index> SelectedFeaturesGate::discrete_inputs() const {
  std::vector<Index> discrete;
  for (const Index d : inner_->discrete_inputs()) {
    discrete.push_back(features_[static_cast<std::size_t>(d)]);
  }
  std::sort(discrete.begin(), discrete.end());
  return discrete;
}

nlohmann::json SelectedFeaturesGate::to_json() const {
  nlohmann::json inner = inner_->to_json();
  inner["kind"] = inner_->kind();
  return {{"input_dim", input_dim_}, {"features", features_}, {"inner", inner}};
}

std::shared_ptr<const SelectedFeaturesGate> SelectedFeaturesGate::from_json(
    const nlohmann::json& document, const GateReader& read_gate) {
  return reading_model_part("selected-features gate", [&] {
    const auto& inner = json_member(document, "inner");
    return std::make_shared<const SelectedFeaturesGate>(
        json_integer(json_member(document, "input_dim"), "selected-features gate: input_dim", 1),
        json_integers(json_member(document, "features"), "selected-features gate: features", 0),
        read_gate(json_member(inner, "kind").get<std::string>(), inner));
  });
}

ConditionalMixture model_on_all_features(const ConditionalMixture& inner,
                                         const std::vector<Index>& features,
                                         const Standardizer& x_scaling) {
  Vector mean = x_scaling.mean();
  Vector scale = x_scaling.scale();
  for (std::size_t s = 0; s < features.size(); ++s) {
    mean(features[s]) = inner.x_scaling().mean()(static_cast<Index>(s));
    scale(features[s]) = inner.x_scaling().scale()(static_cast<Index>(s));
  }
  std::vector<TrendGroup> groups = inner.trend_groups();
  for (TrendGroup& group : groups) {
    if (group.trend) {
      group.trend = std::make_shared<const SelectedFeaturesTrend>(x_scaling.dimension(), features,
                                                                  std::move(group.trend));
    }
  }
  return ConditionalMixture(Standardizer(mean, scale), inner.y_scaling(),
                            std::make_shared<const SelectedFeaturesGate>(
                                x_scaling.dimension(), features, inner.shared_gate()),
                            inner.outputs().with_groups(std::move(groups)));
}

}  // namespace cdens

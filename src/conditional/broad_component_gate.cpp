#include "conditional/broad_component_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {

BroadComponentGate::BroadComponentGate(std::shared_ptr<const ConditionalGate> inner, double weight)
    : inner_(std::move(inner)), weight_(weight) {
  if (!inner_) throw InvalidArgument("broad-component gate: no inner gate");
  if (!(weight_ >= 0.0 && weight_ <= 1.0)) {
    throw InvalidArgument("broad-component gate: the weight must lie in [0, 1]");
  }
}

void BroadComponentGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  const Index inner_count = inner_->n_components();
  auto inner_rows = out.topRows(inner_count);
  inner_->log_weights(x, inner_rows);
  const double keep = std::log1p(-weight_);
  for (Index j = 0; j < out.cols(); ++j) {
    const double normaliser = log_sum_exp(inner_rows.col(j));
    if (normaliser == -INFINITY) {
      inner_rows.col(j).setConstant(keep - std::log(static_cast<double>(inner_count)));
    } else {
      inner_rows.col(j).array() += keep - normaliser;
    }
  }
  out.row(inner_count).setConstant(std::log(weight_));
}

Vector BroadComponentGate::log_marginal_weights() const {
  Vector weights(n_components());
  const Vector inner = inner_->log_marginal_weights();
  weights.head(inner.size()) = inner.array() + std::log1p(-weight_) - log_sum_exp(inner);
  weights(inner.size()) = std::log(weight_);
  return weights;
}

std::optional<GaussianKernelCenters> BroadComponentGate::gaussian_kernel() const {
  std::optional<GaussianKernelCenters> kernel = inner_->gaussian_kernel();
  if (!kernel || kernel->broad_weight > 0.0) return std::nullopt;
  kernel->broad_weight = weight_;
  return kernel;
}

nlohmann::json BroadComponentGate::to_json() const {
  nlohmann::json inner = inner_->to_json();
  inner["kind"] = inner_->kind();
  return {{"weight", weight_}, {"inner", inner}};
}

std::shared_ptr<const BroadComponentGate> BroadComponentGate::from_json(
    const nlohmann::json& document, const GateReader& read_gate) {
  return reading_model_part("broad-component gate", [&] {
    const auto& inner = json_member(document, "inner");
    const auto& weight = json_member(document, "weight");
    if (!weight.is_number()) throw ModelFormatError("broad-component gate: weight is not a number");
    return std::make_shared<const BroadComponentGate>(
        read_gate(json_member(inner, "kind").get<std::string>(), inner), weight.get<double>());
  });
}

}  // namespace cdens

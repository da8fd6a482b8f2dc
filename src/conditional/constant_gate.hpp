#pragma once
// A gate whose weights do not depend on x: w_k(x) = β_k. With one component it makes the
// conditional mixture a single Gaussian around the trend (the linear-Gaussian model).

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/conditional_gate.hpp"

namespace cdens {

class ConstantGate final : public ConditionalGate {
 public:
  /// `log_weights` are log β_k (K ≥ 1, finite); the input dimension is d_x ≥ 1.
  ConstantGate(Index input_dim, Vector log_weights);

  std::string kind() const override { return "constant"; }
  Index input_dim() const override { return input_dim_; }
  Index n_components() const override { return log_weights_.size(); }
  /// log β_k for every input.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override { return log_weights_; }
  /// {"input_dim": d_x, "log_weights": log β}.
  nlohmann::json to_json() const override;
  /// The gate written by to_json(); ModelFormatError if a field is missing or malformed.
  static std::shared_ptr<const ConstantGate> from_json(const nlohmann::json& document);

 private:
  Index input_dim_;
  Vector log_weights_;
};

/// Equal weights β_k = 1/K over `count` components: the marginal mixture of the outputs, which a
/// coefficient-based gate whose coefficients all vanished amounts to.
std::shared_ptr<const ConstantGate> uniform_gate(Index input_dim, Index count);

}  // namespace cdens

#include "conditional/constant_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"

namespace cdens {

ConstantGate::ConstantGate(Index input_dim, Vector log_weights)
    : input_dim_(input_dim), log_weights_(std::move(log_weights)) {
  if (input_dim_ < 1)
    throw InvalidArgument("a constant gate needs an input dimension of 1 or more");
  if (log_weights_.size() == 0 || !log_weights_.allFinite()) {
    throw InvalidArgument("a constant gate needs at least one finite log-weight");
  }
}

void ConstantGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  out = log_weights_.replicate(1, x.cols());
}

nlohmann::json ConstantGate::to_json() const {
  return {{"input_dim", input_dim_}, {"log_weights", vector_to_json(log_weights_)}};
}

std::shared_ptr<const ConstantGate> ConstantGate::from_json(const nlohmann::json& document) {
  return std::make_shared<const ConstantGate>(
      json_integer(json_member(document, "input_dim"), "constant gate: input_dim", 1),
      vector_from_json(json_member(document, "log_weights"), "gate log-weights"));
}

std::shared_ptr<const ConstantGate> uniform_gate(Index input_dim, Index count) {
  return std::make_shared<const ConstantGate>(
      input_dim, Vector::Constant(count, -std::log(static_cast<double>(count))));
}

}  // namespace cdens

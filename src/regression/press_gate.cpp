#include "regression/press_gate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "regression/press_smoother.hpp"

namespace cdens {
namespace {

constexpr double kSmallestBandwidth = 1e-3;

}  // namespace

PressGate::PressGate(Matrix coefficients, Matrix output_weights, Vector state_sizes)
    : coefficients_(std::move(coefficients)),
      output_weights_(std::move(output_weights)),
      state_sizes_(std::move(state_sizes)) {
  if (coefficients_.rows() < 2 || coefficients_.cols() < 1) {
    throw InvalidArgument("a PRESS gate needs an intercept, at least one input and one state");
  }
  if (output_weights_.rows() != coefficients_.cols() || state_sizes_.size() != n_states() ||
      output_weights_.cols() < 1) {
    throw InvalidArgument("PRESS gate: coefficients, output weights and state sizes disagree");
  }
  if (!coefficients_.allFinite()) throw InvalidArgument("PRESS coefficients must be finite");
  if (!output_weights_.allFinite() || (output_weights_.array() < 0.0).any() ||
      !state_sizes_.allFinite() || !(state_sizes_.array() > 0.0).all()) {
    throw InvalidArgument("PRESS output weights must be >= 0 and state sizes > 0");
  }
  log_output_weights_ = output_weights_.array().log();
}

Matrix PressGate::state_weights(const MatrixView& x) const {
  return press_state_weights(coefficients_, press_design(x));
}

void PressGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  const Matrix log_states = press_log_state_weights(coefficients_, press_design(x));
  const Index k_count = n_outputs();
  for (Index j = 0; j < n_states(); ++j) {
    out.middleRows(j * k_count, k_count) =
        log_output_weights_.row(j).transpose().replicate(1, x.cols()).rowwise() + log_states.row(j);
  }
}

Vector PressGate::log_marginal_weights() const {
  Vector result(n_components());
  const Index k_count = n_outputs();
  for (Index j = 0; j < n_states(); ++j) {
    result.segment(j * k_count, k_count) =
        log_output_weights_.row(j).transpose().array() + std::log(state_sizes_(j));
  }
  return result;
}

nlohmann::json PressGate::to_json() const {
  return {{"coefficients", matrix_to_json(coefficients_)},
          {"output_weights", matrix_to_json(output_weights_)},
          {"state_sizes", matrix_to_json(state_sizes_)}};
}

std::shared_ptr<const PressGate> PressGate::from_json(const nlohmann::json& document) {
  const Matrix sizes = matrix_from_json(json_member(document, "state_sizes"), "state sizes");
  if (sizes.cols() != 1) throw ModelFormatError("PRESS state sizes must be one column");
  return std::make_shared<const PressGate>(
      matrix_from_json(json_member(document, "coefficients"), "PRESS coefficients"),
      matrix_from_json(json_member(document, "output_weights"), "PRESS output weights"),
      sizes.col(0));
}

Vector press_state_bandwidths(const MatrixView& weights, const VectorView& y,
                              const Communicator& communicator) {
  const PressSmoothing smoothing = press_smoothing(weights, y, communicator);
  // Σ_i W_ji (y_i − ȳ⁽ʲ⁾)² and Σ_i W_ji² of every state, over every rank's samples.
  Matrix sums(weights.rows(), 2);
  for (Index j = 0; j < weights.rows(); ++j) {
    const auto w = weights.row(j).transpose().array();
    sums(j, 0) = (w * (y.array() - smoothing.state_means(j)).square()).sum();
    sums(j, 1) = w.square().sum();
  }
  communicator.allreduce_sum(sums.data(), static_cast<std::size_t>(sums.size()));
  Vector widths(weights.rows());
  for (Index j = 0; j < weights.rows(); ++j) {
    const double size = smoothing.state_sizes(j);
    const double variance = sums(j, 0) / std::max(size, 1e-300);
    const double effective_size = size * size / std::max(sums(j, 1), 1e-300);
    widths(j) =
        std::max(kSmallestBandwidth, 1.06 * std::sqrt(variance) * std::pow(effective_size, -0.2));
  }
  return widths;
}

ConditionalMixture make_press_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const MatrixView& coefficients, const MatrixView& weights,
                                      const VectorView& y, const Communicator& communicator) {
  const Index j_count = weights.rows();
  // This rank's distinct outputs and the summed weights W_ji of the samples at each, as records
  // (v_k, Σ W_1i, …, Σ W_Ji); then every rank's, the weights of an output that several ranks
  // hold added in rank order.
  std::map<double, Vector> local;
  for (Index i = 0; i < y.size(); ++i) {
    auto [entry, inserted] = local.try_emplace(y(i), Vector::Zero(j_count));
    entry->second += weights.col(i);
  }
  std::vector<double> records;
  records.reserve(local.size() * static_cast<std::size_t>(j_count + 1));
  for (const auto& [output, summed] : local) {
    records.push_back(output);
    records.insert(records.end(), summed.data(), summed.data() + j_count);
  }
  records = communicator.gather_all(records);
  std::map<double, Vector> every;
  const auto record_size = static_cast<std::size_t>(j_count + 1);
  for (std::size_t r = 0; r < records.size(); r += record_size) {
    auto [entry, inserted] = every.try_emplace(records[r], Vector::Zero(j_count));
    entry->second += Eigen::Map<const Vector>(records.data() + r + 1, j_count);
  }
  // Distinct outputs in increasing order.
  const auto k_count = static_cast<Index>(every.size());
  Vector outputs(k_count);
  Matrix output_weights(j_count, k_count);
  Index next = 0;
  for (const auto& [output, summed] : every) {
    outputs(next) = output;
    output_weights.col(next++) = summed;
  }
  const PressSmoothing smoothing = press_smoothing(weights, y, communicator);
  // A state whose size underflowed to zero keeps a tiny positive size and an even spread, so
  // that the gate stays valid; its weight w_j(x) is then negligible everywhere.
  Vector sizes = smoothing.state_sizes.cwiseMax(1e-300);
  output_weights = sizes.cwiseInverse().asDiagonal() * output_weights;
  const Vector bandwidths = press_state_bandwidths(weights, y, communicator);

  Matrix centers(1, j_count * k_count);
  Matrix scales(1, j_count * k_count);
  for (Index j = 0; j < j_count; ++j) {
    centers.block(0, j * k_count, 1, k_count) = outputs.transpose();
    scales.block(0, j * k_count, 1, k_count).setConstant(bandwidths(j));
  }
  return ConditionalMixture(
      x_scaling, y_scaling,
      std::make_shared<const PressGate>(Matrix(coefficients), std::move(output_weights), sizes),
      MixtureOutputs::gaussian(std::move(centers), std::move(scales)));
}

const PressGate& press_gate_of(const ConditionalMixture& model) {
  const auto* gate = dynamic_cast<const PressGate*>(&model.gate());
  if (gate == nullptr) {
    throw InvalidArgument("not a PRESS model (its gate is '" + model.gate().kind() + "')");
  }
  return *gate;
}

Matrix press_state_weights(const ConditionalMixture& model, const MatrixView& x) {
  const PressGate& gate = press_gate_of(model);
  return gate.state_weights(model.x_scaling().transform_query(x, "x"));
}

}  // namespace cdens

#include "cdens/regression/press_gate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/regression/press_smoother.hpp"

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

Vector press_state_bandwidths(const MatrixView& weights, const VectorView& y) {
  const PressSmoothing smoothing = press_smoothing(weights, y);
  Vector widths(weights.rows());
  for (Index j = 0; j < weights.rows(); ++j) {
    const auto w = weights.row(j).transpose().array();
    const double size = smoothing.state_sizes(j);
    const double variance =
        (w * (y.array() - smoothing.state_means(j)).square()).sum() / std::max(size, 1e-300);
    const double effective_size = size * size / std::max(w.square().sum(), 1e-300);
    widths(j) =
        std::max(kSmallestBandwidth, 1.06 * std::sqrt(variance) * std::pow(effective_size, -0.2));
  }
  return widths;
}

ConditionalMixture make_press_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const MatrixView& coefficients, const MatrixView& weights,
                                      const VectorView& y) {
  // Distinct outputs in increasing order, and the component each sample adds to.
  std::map<double, Index> position;
  for (Index i = 0; i < y.size(); ++i) position.emplace(y(i), 0);
  Vector outputs(static_cast<Index>(position.size()));
  Index next = 0;
  for (auto& entry : position) {
    outputs(next) = entry.first;
    entry.second = next++;
  }
  const PressSmoothing smoothing = press_smoothing(weights, y);
  const Index j_count = weights.rows();
  const Index k_count = outputs.size();
  Matrix output_weights = Matrix::Zero(j_count, k_count);
  for (Index i = 0; i < y.size(); ++i) output_weights.col(position.at(y(i))) += weights.col(i);
  // A state whose size underflowed to zero keeps a tiny positive size and an even spread, so
  // that the gate stays valid; its weight w_j(x) is then negligible everywhere.
  Vector sizes = smoothing.state_sizes.cwiseMax(1e-300);
  output_weights = sizes.cwiseInverse().asDiagonal() * output_weights;
  const Vector bandwidths = press_state_bandwidths(weights, y);

  Matrix centers(1, j_count * k_count);
  Matrix scales(1, j_count * k_count);
  for (Index j = 0; j < j_count; ++j) {
    centers.block(0, j * k_count, 1, k_count) = outputs.transpose();
    scales.block(0, j * k_count, 1, k_count).setConstant(bandwidths(j));
  }
  return ConditionalMixture(
      x_scaling, y_scaling,
      std::make_shared<const PressGate>(Matrix(coefficients), std::move(output_weights), sizes),
      std::move(centers), std::move(scales));
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

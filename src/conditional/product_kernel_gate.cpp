#include "conditional/product_kernel_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "conditional/gate_coefficients.hpp"
#include "core/log_space.hpp"
#include "core/samples.hpp"
#include "io/json_io.hpp"
#include "kernel_sums/gaussian_kernel.hpp"

namespace cdens {
ProductKernelGate::ProductKernelGate(Matrix centers_x, Vector bandwidths, ColumnKernels kernels,
                                     double marginal_weight, Vector row_weights)
    : centers_x_(std::move(centers_x)),
      bandwidths_(std::move(bandwidths)),
      kernels_(std::move(kernels)),
      marginal_weight_(marginal_weight),
      row_weights_(std::move(row_weights)) {
  if (centers_x_.cols() == 0 || centers_x_.rows() == 0) {
    throw InvalidArgument("a kernel gate needs at least one centre of dimension at least 1");
  }
  require_gate_centres(centers_x_, "kernel gate");
  if (bandwidths_.size() != centers_x_.rows()) {
    throw InvalidArgument("the kernel gate needs one bandwidth per input dimension");
  }
  if (!bandwidths_.allFinite() || (bandwidths_.array() <= 0.0).any()) {
    throw InvalidArgument("kernel gate bandwidths must be finite and positive");
  }
  if (!(marginal_weight_ >= 0.0 && marginal_weight_ <= 1.0)) {
    throw InvalidArgument("the kernel gate's marginal weight must lie in [0, 1]");
  }
  if (row_weights_.size() > 0) {
    if (row_weights_.size() != centers_x_.cols() || !row_weights_.allFinite() ||
        (row_weights_.array() <= 0.0).any()) {
      throw InvalidArgument("the kernel gate needs one finite positive weight per centre");
    }
    log_row_weights_ = row_weights_.array().log();
  }
  if (kernels_.empty()) kernels_.resize(static_cast<std::size_t>(centers_x_.rows()));
  if (static_cast<Index>(kernels_.size()) != centers_x_.rows()) {
    throw InvalidArgument("the kernel gate needs one kernel per input dimension");
  }
  center_levels_.resize(kernels_.size());
  for (Index d = 0; d < centers_x_.rows(); ++d) {
    const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
    if (!kernel.is_discrete()) {
      // The fit's own range (a model file may hold anything): a narrower kernel overflows
      // ‖x − u‖²/h² and the queries would be NaN.
      require_kernel_width(bandwidths_(d),
                           "the kernel gate's bandwidth of input x" + std::to_string(d));
      continuous_rows_.push_back(d);
      continue;
    }
    kernel.require_smoothing(bandwidths_(d), "x" + std::to_string(d));
    auto& levels = center_levels_[static_cast<std::size_t>(d)];
    for (Index k = 0; k < centers_x_.cols(); ++k) {
      levels.push_back(kernel.level_index(centers_x_(d, k)));
      if (levels.back() < 0) {
        throw InvalidArgument("kernel gate centres of a discrete input must be its levels");
      }
    }
  }
  const Vector inverse = gather_rows(bandwidths_, continuous_rows_).cwiseInverse();
  scaled_centers_ = inverse.asDiagonal() * gather_rows(centers_x_, continuous_rows_);
}

void ProductKernelGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  if (continuous_rows_.empty()) {
    out.setZero();
  } else {
    const Vector inverse = gather_rows(bandwidths_, continuous_rows_).cwiseInverse();
    squared_distances(scaled_centers_, inverse.asDiagonal() * gather_rows(x, continuous_rows_),
                      out);
    out *= -0.5;
  }
  for (Index d = 0; d < input_dim(); ++d) {
    const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
    if (!kernel.is_discrete()) continue;
    const auto& levels = center_levels_[static_cast<std::size_t>(d)];
    Vector by_level(kernel.n_levels());
    for (Index j = 0; j < x.cols(); ++j) {
      for (Index l = 0; l < kernel.n_levels(); ++l) {
        by_level(l) = kernel.log_weight(x(d, j), kernel.levels()[static_cast<std::size_t>(l)],
                                        bandwidths_(d));
      }
      for (Index k = 0; k < n_components(); ++k) {
        out(k, j) += by_level(levels[static_cast<std::size_t>(k)]);
      }
    }
  }
  if (row_weights_.size() > 0) out.colwise() += log_row_weights_;
  if (marginal_weight_ > 0.0) mix_with_marginal_weights(out);
}

void ProductKernelGate::mix_with_marginal_weights(Eigen::Ref<Matrix> out) const {
  const double keep = std::log1p(-marginal_weight_);
  const double log_count = std::log(static_cast<double>(n_components()));
  // log of ε times the normalised marginal weights: ε / K, or ε c_k / Σc with row weights.
  const double equal = std::log(marginal_weight_ / static_cast<double>(n_components()));
  const Vector normalized_marginal =
      row_weights_.size() > 0 ? Vector(log_row_weights_.array() - log_sum_exp(log_row_weights_))
                              : Vector(Vector::Constant(n_components(), -log_count));
  const double log_marginal_weight = std::log(marginal_weight_);
  for (Index j = 0; j < out.cols(); ++j) {
    const double normaliser = log_sum_exp(out.col(j));
    // Where every kernel weight is zero the normalised weights are the marginal ones (the
    // mixture's fallback), and so are the mixed ones.
    if (normaliser == -INFINITY) {
      out.col(j) = normalized_marginal;
      continue;
    }
    for (Index k = 0; k < out.rows(); ++k) {
      const double marginal =
          row_weights_.size() > 0 ? log_marginal_weight + normalized_marginal(k) : equal;
      out(k, j) = log_add_exp(keep + (out(k, j) - normaliser), marginal);
    }
  }
}

Vector ProductKernelGate::log_marginal_weights() const {
  return row_weights_.size() > 0 ? log_row_weights_ : Vector::Zero(n_components());
}

std::optional<GaussianKernelCenters> ProductKernelGate::gaussian_kernel() const {
  if (static_cast<Index>(continuous_rows_.size()) != input_dim()) return std::nullopt;
  return GaussianKernelCenters{&centers_x_, bandwidths_.cwiseInverse(),
                               row_weights_.size() > 0 ? &row_weights_ : nullptr, marginal_weight_,
                               0.0};
}

std::vector<Index> ProductKernelGate::discrete_inputs() const {
  std::vector<Index> discrete;
  for (Index d = 0; d < input_dim(); ++d) {
    if (kernels_[static_cast<std::size_t>(d)].is_discrete()) discrete.push_back(d);
  }
  return discrete;
}

nlohmann::json ProductKernelGate::to_json() const {
  nlohmann::json document = {{"centers_x", matrix_to_json(centers_x_)},
                             {"bandwidths", vector_to_json(bandwidths_)}};
  if (any_discrete(kernels_)) {
    document["input_kernels"] = nlohmann::json::array();
    for (const ColumnKernel& kernel : kernels_)
      document["input_kernels"].push_back(kernel.to_json());
  }
  if (marginal_weight_ > 0.0) document["marginal_weight"] = marginal_weight_;
  if (row_weights_.size() > 0) document["row_weights"] = vector_to_json(row_weights_);
  return document;
}

std::shared_ptr<const ProductKernelGate> ProductKernelGate::from_json(
    const nlohmann::json& document) {
  ColumnKernels kernels;
  if (document.contains("input_kernels")) {
    const auto& list = document["input_kernels"];
    if (!list.is_array()) throw ModelFormatError("the gate's input_kernels is not a list");
    for (const auto& kernel : list) kernels.push_back(ColumnKernel::from_json(kernel));
  }
  return std::make_shared<const ProductKernelGate>(
      matrix_from_json(json_member(document, "centers_x"), "gate centres"),
      vector_from_json(json_member(document, "bandwidths"), "gate bandwidths"), std::move(kernels),
      document.contains("marginal_weight") ? document["marginal_weight"].get<double>() : 0.0,
      document.contains("row_weights")
          ? vector_from_json(document["row_weights"], "gate row weights")
          : Vector());
}

}  // namespace cdens

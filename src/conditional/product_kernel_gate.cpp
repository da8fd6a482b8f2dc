#include "cdens/conditional/product_kernel_gate.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/csv.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/core/samples.hpp"
#include "core/gaussian_kernel.hpp"
#include "core/log_space.hpp"

namespace cdens {
ProductKernelGate::ProductKernelGate(Matrix centers_x, Vector bandwidths, ColumnKernels kernels,
                                     double marginal_weight)
    : centers_x_(std::move(centers_x)),
      bandwidths_(std::move(bandwidths)),
      kernels_(std::move(kernels)),
      marginal_weight_(marginal_weight) {
  if (centers_x_.cols() == 0 || centers_x_.rows() == 0) {
    throw InvalidArgument("a kernel gate needs at least one centre of dimension at least 1");
  }
  if (!centers_x_.allFinite()) throw InvalidArgument("kernel gate centres must be finite");
  if (bandwidths_.size() != centers_x_.rows()) {
    throw InvalidArgument("the kernel gate needs one bandwidth per input dimension");
  }
  if (!bandwidths_.allFinite() || (bandwidths_.array() <= 0.0).any()) {
    throw InvalidArgument("kernel gate bandwidths must be finite and positive");
  }
  if (!(marginal_weight_ >= 0.0 && marginal_weight_ <= 1.0)) {
    throw InvalidArgument("the kernel gate's marginal weight must lie in [0, 1]");
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
      if (!(bandwidths_(d) >= kNarrowestKernelWidth && bandwidths_(d) <= kWidestKernelWidth)) {
        throw InvalidArgument("the kernel gate's bandwidth of input x" + std::to_string(d) +
                              " must lie in [" + format_number(kNarrowestKernelWidth) + ", " +
                              format_number(kWidestKernelWidth) + "], got " +
                              format_number(bandwidths_(d)));
      }
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
  if (marginal_weight_ > 0.0) mix_with_equal_weights(out);
}

void ProductKernelGate::mix_with_equal_weights(Eigen::Ref<Matrix> out) const {
  const double keep = std::log1p(-marginal_weight_);
  const double equal = std::log(marginal_weight_ / static_cast<double>(n_components()));
  for (Index j = 0; j < out.cols(); ++j) {
    const double normaliser = log_sum_exp(out.col(j));
    // Where every kernel weight is zero the normalised weights are the equal ones (the
    // mixture's fallback), and so are the mixed ones.
    if (normaliser == -INFINITY) {
      out.col(j).setConstant(-std::log(static_cast<double>(n_components())));
      continue;
    }
    for (Index k = 0; k < out.rows(); ++k) {
      out(k, j) = log_add_exp(keep + (out(k, j) - normaliser), equal);
    }
  }
}

Vector ProductKernelGate::log_marginal_weights() const { return Vector::Zero(n_components()); }

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
      document.contains("marginal_weight") ? document["marginal_weight"].get<double>() : 0.0);
}

}  // namespace cdens

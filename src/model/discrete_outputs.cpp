#include "model/discrete_outputs.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cdens/core/types.hpp"
#include "core/samples.hpp"

namespace cdens::detail {

DiscreteOutputs::DiscreteOutputs(ColumnKernels kernels, const Standardizer& y_scaling,
                                 const Matrix& centers, const Matrix& scales)
    : kernels_(std::move(kernels)) {
  const Index d_y = centers.rows();
  if (static_cast<Index>(kernels_.size()) != d_y) {
    throw InvalidArgument("conditional mixture: one kernel per output dimension is needed");
  }
  for (Index d = 0; d < d_y; ++d) {
    const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
    if (!kernel.is_discrete()) {
      gaussian_rows_.push_back(d);
      continue;
    }
    const std::string name = "y" + std::to_string(d);
    if (y_scaling.mean()(d) != 0.0 || y_scaling.scale()(d) != 1.0) {
      throw InvalidArgument("conditional mixture: discrete output " + name +
                            " must not be standardised");
    }
    const double lambda = scales(d, 0);
    if ((scales.row(d).array() != lambda).any()) {
      throw InvalidArgument("conditional mixture: the smoothing parameter of discrete output " +
                            name + " must be the same for every component");
    }
    kernel.require_smoothing(lambda, name);
    Output output{d, kernel.table(lambda, true).log_values, Matrix(), {}};
    for (Index k = 0; k < centers.cols(); ++k) {
      output.component_levels.push_back(kernel.level_index(centers(d, k)));
      if (output.component_levels.back() < 0) {
        throw InvalidArgument("conditional mixture: the centres of discrete output " + name +
                              " must be its levels");
      }
    }
    output.cumulative_masses = output.log_masses.array().exp();
    for (Index a = 1; a < output.cumulative_masses.rows(); ++a) {
      output.cumulative_masses.row(a) += output.cumulative_masses.row(a - 1);
    }
    outputs_.push_back(std::move(output));
  }
}

const DiscreteOutputs::Output& DiscreteOutputs::output_of(Index d) const {
  for (const Output& output : outputs_) {
    if (output.row == d) return output;
  }
  throw InvalidArgument("output y" + std::to_string(d) + " is not discrete");
}

void DiscreteOutputs::add_log_masses(const VectorView& t, Eigen::Ref<Vector> values) const {
  for (const Output& output : outputs_) {
    const Index level = kernels_[static_cast<std::size_t>(output.row)].level_index(t(output.row));
    if (level < 0) {
      values.setConstant(-INFINITY);  // a value that is none of the levels has no mass
      return;
    }
    for (Index k = 0; k < values.size(); ++k) {
      values(k) += output.log_masses(level, output.component_levels[static_cast<std::size_t>(k)]);
    }
  }
}

void DiscreteOutputs::set_moments(Matrix& means, Matrix& variances) const {
  for (const Output& output : outputs_) {
    const std::vector<double>& levels_of = kernels_[static_cast<std::size_t>(output.row)].levels();
    const Eigen::Map<const Eigen::ArrayXd> levels(levels_of.data(),
                                                  static_cast<Index>(levels_of.size()));
    for (Index k = 0; k < means.cols(); ++k) {
      const Eigen::ArrayXd masses =
          output.log_masses.col(output.component_levels[static_cast<std::size_t>(k)]).array().exp();
      const double mean = (masses * levels).sum();
      means(output.row, k) = mean;
      variances(output.row, k) = (masses * (levels - mean).square()).sum();
    }
  }
}

void DiscreteOutputs::multiply_overlaps(Matrix& overlap) const {
  for (const Output& output : outputs_) {
    const Matrix masses = output.log_masses.array().exp();
    const Matrix level_overlaps = masses.transpose() * masses;
    const auto& levels = output.component_levels;
    for (Index k = 0; k < overlap.rows(); ++k) {
      for (Index l = 0; l < overlap.cols(); ++l) {
        overlap(k, l) *= level_overlaps(levels[static_cast<std::size_t>(k)],
                                        levels[static_cast<std::size_t>(l)]);
      }
    }
  }
}

double DiscreteOutputs::draw(Index d, Index k, Rng& rng) const {
  // A level by inversion of the masses around the centre's level.
  const Output& output = output_of(d);
  const auto column =
      output.cumulative_masses.col(output.component_levels[static_cast<std::size_t>(k)]);
  const double u = rng.uniform() * column(column.size() - 1);
  Index level = 0;
  while (level + 1 < column.size() && column(level) <= u) ++level;
  return kernels_[static_cast<std::size_t>(d)].levels()[static_cast<std::size_t>(level)];
}

LevelDistribution DiscreteOutputs::level_distribution(const VectorView& pi) const {
  const Output& output = outputs_.front();
  Vector by_level = Vector::Zero(output.log_masses.cols());
  for (Index k = 0; k < pi.size(); ++k) {
    by_level(output.component_levels[static_cast<std::size_t>(k)]) += pi(k);
  }
  return LevelDistribution(kernels_.front().levels(),
                           output.log_masses.array().exp().matrix() * by_level);
}

void DiscreteOutputs::write_json(nlohmann::json& document) const {
  if (outputs_.empty()) return;
  document["output_kernels"] = nlohmann::json::array();
  for (const ColumnKernel& kernel : kernels_)
    document["output_kernels"].push_back(kernel.to_json());
}

ColumnKernels DiscreteOutputs::kernels_from_json(const nlohmann::json& document) {
  ColumnKernels kernels;
  if (!document.contains("output_kernels")) return kernels;
  const auto& list = document["output_kernels"];
  if (!list.is_array()) throw ModelFormatError("the model's output_kernels is not a list");
  for (const auto& kernel : list) kernels.push_back(ColumnKernel::from_json(kernel));
  return kernels;
}

}  // namespace cdens::detail

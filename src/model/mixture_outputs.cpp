// The output side of a conditional mixture as a value (conditional_mixture.hpp): its builders.
// The parts built from it check the rest when the mixture is constructed.

#include <utility>

#include "cdens/core/conditional_mixture.hpp"
#include "model/gaussian_components.hpp"

namespace cdens {

MixtureOutputs::MixtureOutputs(Matrix centers, Matrix scales)
    : centers_(std::move(centers)),
      scales_(std::move(scales)),
      groups_{TrendGroup{0, nullptr}},
      output_kernels_(static_cast<std::size_t>(centers_.rows())) {}

MixtureOutputs MixtureOutputs::gaussian(Matrix centers, Matrix scales) {
  detail::GaussianComponents::require_table(centers, scales);
  return MixtureOutputs(std::move(centers), std::move(scales));
}

MixtureOutputs MixtureOutputs::with_trend(std::shared_ptr<const OutputTrend> trend) const& {
  return MixtureOutputs(*this).with_trend(std::move(trend));
}

MixtureOutputs MixtureOutputs::with_trend(std::shared_ptr<const OutputTrend> trend) && {
  groups_ = {TrendGroup{0, std::move(trend)}};
  return std::move(*this);
}

MixtureOutputs MixtureOutputs::with_groups(std::vector<TrendGroup> groups) const& {
  return MixtureOutputs(*this).with_groups(std::move(groups));
}

MixtureOutputs MixtureOutputs::with_groups(std::vector<TrendGroup> groups) && {
  groups_ = std::move(groups);
  return std::move(*this);
}

MixtureOutputs MixtureOutputs::with_bounds(OutputBounds bounds) const& {
  return MixtureOutputs(*this).with_bounds(bounds);
}

MixtureOutputs MixtureOutputs::with_bounds(OutputBounds bounds) && {
  bounds_ = bounds;
  return std::move(*this);
}

MixtureOutputs MixtureOutputs::with_output_kernels(ColumnKernels kernels) const& {
  return MixtureOutputs(*this).with_output_kernels(std::move(kernels));
}

MixtureOutputs MixtureOutputs::with_output_kernels(ColumnKernels kernels) && {
  output_kernels_ = kernels.empty() ? ColumnKernels(static_cast<std::size_t>(centers_.rows()))
                                    : std::move(kernels);
  return std::move(*this);
}

MixtureOutputs MixtureOutputs::with_atom(OutputAtom atom) const& {
  return MixtureOutputs(*this).with_atom(std::move(atom));
}

MixtureOutputs MixtureOutputs::with_atom(OutputAtom atom) && {
  atom_ = std::move(atom);
  return std::move(*this);
}

}  // namespace cdens

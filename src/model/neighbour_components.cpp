#include "model/neighbour_components.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/log_space.hpp"

namespace cdens::detail {
namespace {

// Shares of the query tolerance τ: the points left out of the kernel sum, and the reduction.
constexpr double kNeighbourShare = 0.25;
constexpr double kReductionShare = 0.75;
// No part is reduced within more than this (its bins would merge its whole range; the bins
// dropped, τ/2 of it, would leave nothing to renormalise).
constexpr double kLargestPartTolerance = 0.01;

Vector kernel_row_weights(const GaussianKernelCenters& kernel) {
  return kernel.row_weights ? *kernel.row_weights : Vector(Vector::Ones(kernel.centers->cols()));
}

}  // namespace

NeighbourComponents::NeighbourComponents(const GaussianKernelCenters& kernel,
                                         MergedComponents merged, double tolerance)
    : merged_(std::move(merged)),
      inverse_widths_(kernel.inverse_widths),
      neighbours_(kernel.inverse_widths.asDiagonal() * *kernel.centers, kernel_row_weights(kernel)),
      tolerance_(tolerance),
      kernel_share_((1.0 - kernel.broad_weight) * (1.0 - kernel.marginal_weight)),
      marginal_share_((1.0 - kernel.broad_weight) * kernel.marginal_weight),
      broad_share_(kernel.broad_weight),
      broad_component_(kernel.broad_weight > 0.0 ? kernel.centers->cols() : -1) {
  // The reduction's share of τ, split evenly between the kernel and the marginal part: a part of
  // share a reduced within τ_p moves every probability by at most a·τ_p, so a small marginal
  // weight ε lets its part take wide bins (auto's pool on protein, ε = 0.04: 4,000 of a row's
  // 5,750 components were the marginal part's at 3τ/4; 1,870 of 3,870 at 3τ/(8ε)).
  const double parts = marginal_share_ > 0.0 ? 2.0 : 1.0;
  const auto part_tolerance = [&](double share) {
    return std::min(kLargestPartTolerance, kReductionShare * tolerance_ / (parts * share));
  };
  kernel_tolerance_ = part_tolerance(kernel_share_);
  if (!(marginal_share_ > 0.0)) return;
  const Vector weights = kernel_row_weights(kernel);
  cumulative_row_weights_.resize(static_cast<std::size_t>(weights.size()));
  std::partial_sum(weights.begin(), weights.end(), cumulative_row_weights_.begin());
  const double total = weights.sum();
  std::vector<std::pair<Index, double>> entries;
  for (Index k = 0; k < weights.size(); ++k) {
    entries.emplace_back(merged_.merged_of[static_cast<std::size_t>(k)], weights(k) / total);
  }
  reduce_entries(entries, part_tolerance(marginal_share_), marginal_);
}

void NeighbourComponents::reduce_entries(const std::vector<std::pair<Index, double>>& entries,
                                         double tolerance, ScalarComponentList& reduced) const {
  // Summed by merged component into a dense array (the thread's own, every entry zero between
  // calls), then read in merged order, the order of group, width and centre reduce_components
  // needs: by a walk over the range of the merged components touched where they fill much of it,
  // by sorting their indices otherwise. Sorting the (index, probability) pairs themselves took a
  // fifth of a quantile query on protein (thousands of neighbours per query).
  thread_local std::vector<double> summed;
  const auto merged_count = static_cast<std::size_t>(merged_.centers.size());
  if (summed.size() < merged_count) summed.resize(merged_count, 0.0);
  std::vector<Index> touched;
  touched.reserve(entries.size());
  for (const auto& [m, probability] : entries) {
    if (!(probability > 0.0)) continue;
    double& sum = summed[static_cast<std::size_t>(m)];
    if (sum == 0.0) touched.push_back(m);
    sum += probability;
  }
  std::vector<double> weights;
  std::vector<double> centers;
  std::vector<double> scales;
  std::vector<std::size_t> groups;
  weights.reserve(touched.size());
  centers.reserve(touched.size());
  scales.reserve(touched.size());
  groups.reserve(touched.size());
  const auto take = [&](Index m) {
    double& sum = summed[static_cast<std::size_t>(m)];
    weights.push_back(sum);
    centers.push_back(merged_.centers(m));
    scales.push_back(merged_.scales(m));
    groups.push_back(merged_.groups[static_cast<std::size_t>(m)]);
    sum = 0.0;
  };
  if (!touched.empty()) {
    const auto [lowest, highest] = std::minmax_element(touched.begin(), touched.end());
    const Index first = *lowest;
    const Index last = *highest;
    const auto count = static_cast<double>(touched.size());
    if (static_cast<double>(last - first) <= 4.0 * count * std::log2(count + 1.0)) {
      for (Index m = first; m <= last; ++m) {
        if (summed[static_cast<std::size_t>(m)] != 0.0) take(m);
      }
    } else {
      std::sort(touched.begin(), touched.end());
      for (const Index m : touched) take(m);
    }
  }
  const auto count = static_cast<Index>(weights.size());
  reduce_components(Eigen::Map<const Vector>(weights.data(), count),
                    Eigen::Map<const Vector>(centers.data(), count),
                    Eigen::Map<const Vector>(scales.data(), count), groups, tolerance, reduced);
}

void NeighbourComponents::neighbours_of(const double* z, KernelNeighbours::Found& found) const {
  const Index d = inverse_widths_.size();
  Vector query(d);
  for (Index r = 0; r < d; ++r) query(r) = inverse_widths_(r) * z[r];
  neighbours_.search(query.data(), kNeighbourShare * tolerance_, found);
}

void NeighbourComponents::draw_components(const double* z, Rng& rng,
                                          std::vector<Index>& draws) const {
  KernelNeighbours::Found found;
  neighbours_of(z, found);
  // The found kernels' weights, cumulated relative to the largest (no overflow, no underflow of
  // the ones that matter).
  const double largest = *std::max_element(found.log_terms.begin(), found.log_terms.end());
  std::vector<double> cumulative(found.log_terms.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < cumulative.size(); ++i) {
    sum += std::exp(found.log_terms[i] - largest);
    cumulative[i] = sum;
  }
  // The index of the first cumulative value above u times the total (the last for rounding).
  const auto pick = [](const std::vector<double>& totals, double u) {
    const auto at = std::upper_bound(totals.begin(), totals.end(), u * totals.back());
    return static_cast<std::size_t>(
        std::min(at - totals.begin(), static_cast<std::ptrdiff_t>(totals.size()) - 1));
  };
  for (Index& draw : draws) {
    // The part by its share; a share of zero is never drawn, whatever the rounding of the sum.
    const double part = rng.uniform();
    const bool marginal = marginal_share_ > 0.0;
    const bool broad = broad_component_ >= 0;
    if (part < kernel_share_ || (!marginal && !broad)) {
      draw = found.indices[pick(cumulative, rng.uniform())];
    } else if (marginal && (part < kernel_share_ + marginal_share_ || !broad)) {
      draw = static_cast<Index>(pick(cumulative_row_weights_, rng.uniform()));
    } else {
      draw = broad_component_;
    }
  }
}

void NeighbourComponents::components_at(const double* z, ScalarComponentList& reduced) const {
  KernelNeighbours::Found found;
  neighbours_of(z, found);
  const double normaliser = log_sum_exp(
      Eigen::Map<const Vector>(found.log_terms.data(), static_cast<Index>(found.log_terms.size())));
  std::vector<std::pair<Index, double>> entries;
  entries.reserve(found.indices.size());
  for (std::size_t i = 0; i < found.indices.size(); ++i) {
    const double probability = std::exp(found.log_terms[i] - normaliser);
    if (probability > 0.0) {
      entries.emplace_back(merged_.merged_of[static_cast<std::size_t>(found.indices[i])],
                           probability);
    }
  }
  reduce_entries(entries, kernel_tolerance_, reduced);
  for (double& weight : reduced.weights) weight *= kernel_share_;
  if (marginal_share_ > 0.0) {
    for (std::size_t b = 0; b < marginal_.weights.size(); ++b) {
      reduced.push_back(marginal_share_ * marginal_.weights[b], marginal_.centers[b],
                        marginal_.scales[b], marginal_.groups[b]);
    }
  }
  if (broad_component_ >= 0) {
    const Index m = merged_.merged_of[static_cast<std::size_t>(broad_component_)];
    reduced.push_back(broad_share_, merged_.centers(m), merged_.scales(m),
                      merged_.groups[static_cast<std::size_t>(m)]);
  }
}

}  // namespace cdens::detail

#include "model/neighbour_components.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cdens::detail {
namespace {

// Shares of the query tolerance τ: the points left out of the kernel sum, and the reduction.
constexpr double kNeighbourShare = 0.25;
constexpr double kReductionShare = 0.75;

Vector kernel_row_weights(const GaussianKernelCenters& kernel) {
  return kernel.row_weights ? *kernel.row_weights : Vector(Vector::Ones(kernel.centers->cols()));
}

}  // namespace

NeighbourComponents::NeighbourComponents(const GaussianKernelCenters& kernel,
                                         const MergedComponents& merged, double tolerance)
    : inverse_widths_(kernel.inverse_widths),
      neighbours_(kernel.inverse_widths.asDiagonal() * *kernel.centers, kernel_row_weights(kernel)),
      tolerance_(tolerance),
      kernel_share_((1.0 - kernel.broad_weight) * (1.0 - kernel.marginal_weight)),
      marginal_share_((1.0 - kernel.broad_weight) * kernel.marginal_weight),
      broad_component_(kernel.broad_weight > 0.0 ? kernel.centers->cols() : -1) {
  // The reduction's share of τ, split evenly between the kernel and the marginal part: a part of
  // share a reduced within τ_p moves every probability by at most a·τ_p, so a small marginal
  // weight ε lets its part take wide bins (auto's pool on protein, ε = 0.04: 4,000 of a row's
  // 5,750 components were the marginal part's at 3τ/4; 1,870 of 3,870 at 3τ/(8ε)).
  const double parts = marginal_share_ > 0.0 ? 2.0 : 1.0;
  const auto part_tolerance = [&](double share) {
    return std::min(kLargestReductionTolerance, kReductionShare * tolerance_ / (parts * share));
  };
  kernel_tolerance_ = part_tolerance(kernel_share_);
  kernel_bins_ = bins_for(merged, kernel_tolerance_);
  if (broad_component_ >= 0) {
    const Index m = merged.merged_of[static_cast<std::size_t>(broad_component_)];
    broad_.push_back(kernel.broad_weight, merged.centers(m), merged.scales(m),
                     merged.groups[static_cast<std::size_t>(m)]);
  }
  if (!(marginal_share_ > 0.0)) return;
  const Vector weights = kernel_row_weights(kernel);
  cumulative_row_weights_.resize(static_cast<std::size_t>(weights.size()));
  std::partial_sum(weights.begin(), weights.end(), cumulative_row_weights_.begin());
  std::vector<double> tree_weights(weights.size());
  for (std::size_t p = 0; p < tree_weights.size(); ++p) {
    tree_weights[p] = weights(neighbours_.order()[p]);
  }
  const double marginal_tolerance = part_tolerance(marginal_share_);
  reduce_in_bins(bins_for(merged, marginal_tolerance), nullptr, tree_weights, marginal_tolerance,
                 marginal_);
}

NeighbourComponents::Bins NeighbourComponents::bins_for(const MergedComponents& merged,
                                                        double tolerance) const {
  // The merged components are in the order of group, width and centre: one pass numbers the
  // bins in that order, a bin ⌊(c − lowest)/(κ·s)⌋ of its group and width.
  const double kappa = reduction_bin_width(tolerance);
  const auto merged_count = static_cast<std::size_t>(merged.centers.size());
  Bins bins;
  std::vector<std::int32_t> bin_of_merged(merged_count);
  double lowest = 0.0;
  double previous_slot = 0.0;
  for (std::size_t m = 0; m < merged_count; ++m) {
    const double center = merged.centers(static_cast<Index>(m));
    const double scale = merged.scales(static_cast<Index>(m));
    const std::size_t group = merged.groups[m];
    const bool same_class = m > 0 && group == bins.groups.back() && scale == bins.scales.back();
    if (!same_class) lowest = center;
    const double slot = std::floor((center - lowest) / (kappa * scale));
    if (!same_class || slot != previous_slot) {
      bins.middles.push_back(lowest + (slot + 0.5) * kappa * scale);
      bins.scales.push_back(scale);
      bins.groups.push_back(group);
      previous_slot = slot;
    }
    bin_of_merged[m] = static_cast<std::int32_t>(bins.middles.size() - 1);
  }
  const std::vector<Index>& order = neighbours_.order();
  bins.of_point.resize(order.size());
  bins.offset_of_point.resize(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) {
    const Index m = merged.merged_of[static_cast<std::size_t>(order[p])];
    const std::int32_t bin = bin_of_merged[static_cast<std::size_t>(m)];
    bins.of_point[p] = bin;
    bins.offset_of_point[p] = merged.centers(m) - bins.middles[static_cast<std::size_t>(bin)];
  }
  return bins;
}

void NeighbourComponents::reduce_in_bins(const Bins& bins, const std::vector<Index>* positions,
                                         const std::vector<double>& weights, double tolerance,
                                         ScalarComponentList& reduced) const {
  // Sums of p, p·offset and p·offset² per bin, in arrays of the thread's own (every entry zero
  // between calls), read over the range of the bins touched.
  thread_local std::vector<double> sums;
  const std::size_t bin_count = bins.middles.size();
  if (sums.size() < 3 * bin_count) sums.resize(3 * bin_count, 0.0);
  std::size_t first = bin_count;
  std::size_t last = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double weight = weights[i];
    if (!(weight > 0.0)) continue;
    const auto p = static_cast<std::size_t>(positions ? (*positions)[i] : static_cast<Index>(i));
    const auto bin = static_cast<std::size_t>(bins.of_point[p]);
    const double offset = bins.offset_of_point[p];
    double* sum = &sums[3 * bin];
    sum[0] += weight;
    sum[1] += weight * offset;
    sum[2] += weight * offset * offset;
    first = std::min(first, bin);
    last = std::max(last, bin);
  }
  reduced = ScalarComponentList{};
  for (std::size_t bin = first; bin <= last && first < bin_count; ++bin) {
    double* sum = &sums[3 * bin];
    if (sum[0] > 0.0) {
      const double mean = sum[1] / sum[0];
      const double variance = std::max(0.0, sum[2] / sum[0] - mean * mean);
      const double scale = bins.scales[bin];
      reduced.push_back(sum[0], bins.middles[bin] + mean,
                        variance > 0.0 ? std::sqrt(scale * scale + variance) : scale,
                        bins.groups[bin]);
    }
    sum[0] = sum[1] = sum[2] = 0.0;
  }
  drop_negligible_bins(tolerance, reduced);
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
      draw = neighbours_.column(found.positions[pick(cumulative, rng.uniform())]);
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
  reduce_in_bins(kernel_bins_, &found.positions, found.weights, kernel_tolerance_, reduced);
  for (double& weight : reduced.weights) weight *= kernel_share_;
  if (marginal_share_ > 0.0) {
    for (std::size_t b = 0; b < marginal_.weights.size(); ++b) {
      reduced.push_back(marginal_share_ * marginal_.weights[b], marginal_.centers[b],
                        marginal_.scales[b], marginal_.groups[b]);
    }
  }
  for (std::size_t b = 0; b < broad_.weights.size(); ++b) {
    reduced.push_back(broad_.weights[b], broad_.centers[b], broad_.scales[b], broad_.groups[b]);
  }
}

}  // namespace cdens::detail

#include "model/component_reduction.hpp"

#include <algorithm>
#include <cmath>

namespace cdens::detail {

double reduction_bin_width(double tolerance) { return std::cbrt(tolerance / 0.06); }

void reduce_components(const VectorView& weights, const VectorView& centers,
                       const VectorView& scales, const std::vector<std::size_t>& groups,
                       double tolerance, ScalarComponentList& reduced) {
  reduced = ScalarComponentList{};
  const double kappa = reduction_bin_width(tolerance);
  // One bin: the components from `first` on of its group and width whose centres lie within κ·s
  // of the first one's; sums of w, w·(c − c₀) and w·(c − c₀)², shifted for accuracy.
  Index k = 0;
  while (k < weights.size()) {
    if (!(weights(k) > 0.0)) {
      ++k;
      continue;
    }
    const double origin = centers(k);
    const double scale = scales(k);
    const std::size_t group = groups[static_cast<std::size_t>(k)];
    double weight = 0.0;
    double first = 0.0;
    double second = 0.0;
    for (; k < weights.size() && groups[static_cast<std::size_t>(k)] == group &&
           scales(k) == scale && centers(k) - origin <= kappa * scale;
         ++k) {
      const double w = weights(k);
      if (!(w > 0.0)) continue;
      const double offset = centers(k) - origin;
      weight += w;
      first += w * offset;
      second += w * offset * offset;
    }
    const double mean = first / weight;
    const double variance = std::max(0.0, second / weight - mean * mean);
    reduced.push_back(weight, origin + mean,
                      variance > 0.0 ? std::sqrt(scale * scale + variance) : scale, group);
  }
  drop_negligible_bins(tolerance, reduced);
}

void drop_negligible_bins(double tolerance, ScalarComponentList& reduced) {
  if (!(tolerance > 0.0)) return;
  double reduced_total = 0.0;
  for (const double w : reduced.weights) reduced_total += w;
  // The bins of probability at most τ/(2·bins) go; the rest are renormalised.
  const double negligible =
      0.5 * tolerance * reduced_total / static_cast<double>(reduced.weights.size());
  std::size_t kept = 0;
  double kept_total = 0.0;
  for (std::size_t b = 0; b < reduced.weights.size(); ++b) {
    if (reduced.weights[b] <= negligible) continue;
    reduced.weights[kept] = reduced.weights[b];
    reduced.centers[kept] = reduced.centers[b];
    reduced.scales[kept] = reduced.scales[b];
    reduced.groups[kept] = reduced.groups[b];
    kept_total += reduced.weights[b];
    ++kept;
  }
  reduced.weights.resize(kept);
  reduced.centers.resize(kept);
  reduced.scales.resize(kept);
  reduced.groups.resize(kept);
  for (double& w : reduced.weights) w /= kept_total;
}

}  // namespace cdens::detail

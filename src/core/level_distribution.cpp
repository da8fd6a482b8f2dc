#include "core/level_distribution.hpp"

#include <algorithm>
#include <numeric>

namespace cdens::detail {
namespace {

/// Cumulative sums that reach 1 only up to rounding: a probability p is taken as reached within
/// this relative margin, so that p = P(Y ≤ level) in exact arithmetic gives that level.
constexpr double kReachedMargin = 1e-12;

}  // namespace

LevelDistribution::LevelDistribution(const std::vector<double>& levels, Vector probabilities)
    : levels_(levels), probabilities_(std::move(probabilities)) {}

double LevelDistribution::cdf(double y) const {
  double total = 0.0;
  for (std::size_t l = 0; l < levels_.size() && levels_[l] <= y; ++l) {
    total += probabilities_(static_cast<Index>(l));
  }
  return std::min(total, 1.0);
}

double LevelDistribution::quantile(double p) const {
  double total = 0.0;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    total += probabilities_(static_cast<Index>(l));
    if (total >= p * (1.0 - kReachedMargin)) return levels_[l];
  }
  return levels_.back();
}

HighestDensityRegion LevelDistribution::highest_density_region(double coverage) const {
  std::vector<Index> order(levels_.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return probabilities_(a) > probabilities_(b); });
  HighestDensityRegion region{{}, 0.0};
  double total = 0.0;
  std::vector<Index> chosen;
  for (const Index l : order) {
    chosen.push_back(l);
    total += probabilities_(l);
    region.density_threshold = probabilities_(l);
    if (total >= coverage * (1.0 - kReachedMargin)) break;
  }
  std::sort(chosen.begin(), chosen.end());
  for (const Index l : chosen) {
    const double level = levels_[static_cast<std::size_t>(l)];
    region.intervals.push_back({level, level});
  }
  return region;
}

}  // namespace cdens::detail

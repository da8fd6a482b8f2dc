#include "model/level_distribution.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace cdens::detail {
namespace {

/// Cumulative sums that reach 1 only up to rounding: a probability p is taken as reached within
/// this relative margin, so that p = P(Y ≤ level) in exact arithmetic gives that level.
constexpr double kReachedMargin = 1e-12;

}  // namespace

LevelDistribution::LevelDistribution(const std::vector<double>& levels, Vector probabilities)
    : levels_(levels), probabilities_(std::move(probabilities)) {}

double LevelDistribution::probability(double y) const {
  const auto found = std::lower_bound(levels_.begin(), levels_.end(), y);
  if (found == levels_.end() || *found != y) return 0.0;
  return probabilities_(static_cast<Index>(found - levels_.begin()));
}

template <class Below>
double LevelDistribution::cumulative(double y, Below below) const {
  double total = 0.0;
  for (std::size_t l = 0; l < levels_.size() && below(levels_[l], y); ++l) {
    total += probabilities_(static_cast<Index>(l));
  }
  return std::min(total, 1.0);
}

double LevelDistribution::probability_below(double y) const {
  return cumulative(y, std::less<double>());
}

double LevelDistribution::cdf(double y) const { return cumulative(y, std::less_equal<double>()); }

double LevelDistribution::quantile(double p) const {
  double total = 0.0;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    total += probabilities_(static_cast<Index>(l));
    if (total >= p * (1.0 - kReachedMargin)) return levels_[l];
  }
  return levels_.back();
}

std::vector<Index> LevelDistribution::probability_order() const {
  std::vector<Index> order(levels_.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return probabilities_(a) > probabilities_(b); });
  return order;
}

HighestDensityRegion LevelDistribution::highest_density_region(double coverage) const {
  HighestDensityRegion region{{}, 0.0};
  double total = 0.0;
  std::vector<Index> chosen;
  for (const Index l : probability_order()) {
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

double LevelDistribution::probability_ranked_before(double y) const {
  double total = 0.0;
  for (const Index l : probability_order()) {
    if (levels_[static_cast<std::size_t>(l)] == y) return std::min(total, 1.0);
    total += probabilities_(l);
  }
  return 1.0;
}

double LevelDistribution::highest_density_probability(double y) const {
  const double own = probability(y);
  if (!(own > 0.0)) return 1.0;
  return std::min(1.0, (probabilities_.array() >= own).select(probabilities_.array(), 0.0).sum());
}

double LevelDistribution::crps(double y) const {
  std::vector<double> points = levels_;
  points.insert(std::upper_bound(points.begin(), points.end(), y), y);
  double sum = 0.0;
  double below = 0.0;  // F on [points[i], points[i + 1])
  std::size_t level = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    while (level < levels_.size() && levels_[level] <= points[i]) {
      below += probabilities_(static_cast<Index>(level));
      ++level;
    }
    const double step = points[i] >= y ? 1.0 : 0.0;
    sum += (points[i + 1] - points[i]) * (below - step) * (below - step);
  }
  return sum;
}

double LevelDistribution::squared_norm() const { return probabilities_.squaredNorm(); }

}  // namespace cdens::detail

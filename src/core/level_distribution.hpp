#pragma once
// A probability mass function over increasing levels: the conditional mixture at one x when y is
// one discrete dimension. Its CDF is a step function, its quantiles are levels and its
// highest-density region is a set of levels.

#include <vector>

#include "cdens/core/density_region.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

class LevelDistribution {
 public:
  /// `levels` increasing, `probabilities` of the same size summing to 1.
  LevelDistribution(const std::vector<double>& levels, Vector probabilities);

  /// P(Y ≤ y).
  double cdf(double y) const;
  /// The smallest level with P(Y ≤ level) ≥ p, for p in (0, 1).
  double quantile(double p) const;
  /// The fewest levels whose probability reaches `coverage` (the most probable first), each as
  /// an interval [level, level] in increasing order; the threshold is the smallest probability
  /// among them.
  HighestDensityRegion highest_density_region(double coverage) const;

 private:
  std::vector<double> levels_;
  Vector probabilities_;
};

}  // namespace cdens::detail

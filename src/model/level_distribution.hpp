#pragma once
// A probability mass function over increasing levels: the conditional mixture at one x when y is
// one discrete dimension. Its CDF is a step function, its quantiles are levels and its
// highest-density region is a set of levels.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::detail {

class LevelDistribution {
 public:
  /// `levels` increasing, `probabilities` of the same size summing to 1.
  LevelDistribution(const std::vector<double>& levels, Vector probabilities);

  /// P(Y = y): 0 where y is none of the levels.
  double probability(double y) const;
  /// P(Y ≤ y).
  double cdf(double y) const;
  /// P(Y < y).
  double probability_below(double y) const;
  /// The smallest level with P(Y ≤ level) ≥ p, for p in (0, 1).
  double quantile(double p) const;
  /// The fewest levels whose probability reaches `coverage` (the most probable first), each as
  /// an interval [level, level] in increasing order; the threshold is the smallest probability
  /// among them.
  HighestDensityRegion highest_density_region(double coverage) const;
  /// The probability of the levels ranked before y when they are ranked as
  /// highest_density_region ranks them (the most probable first, ties by increasing level); 1
  /// where y is none of the levels (every level is more probable).
  double probability_ranked_before(double y) const;
  /// P(p(Y) ≥ p(y)): the probability of the levels at least as probable as y (1 where y is none
  /// of the levels).
  double highest_density_probability(double y) const;
  /// ∫ (F(z) − 1{z ≥ y})² dz: F and the step are constant between consecutive points of the
  /// levels and y, and agree below and above all of them.
  double crps(double y) const;
  /// Σ_l P(Y = l)², the integral of p² against counting measure.
  double squared_norm() const;

 private:
  /// The positions of the levels, the most probable first, ties by increasing level.
  std::vector<Index> probability_order() const;
  /// The probability of the levels l with below(l, y), summed from the lowest up.
  template <class Below>
  double cumulative(double y, Below below) const;

  std::vector<double> levels_;
  Vector probabilities_;
};

}  // namespace cdens::detail

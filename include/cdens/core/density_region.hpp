#pragma once
// Highest-density regions of a one-dimensional density, the answer of both mixture shapes.

#include <vector>

namespace cdens {

/// A closed interval [lower, upper].
struct Interval {
  double lower;
  double upper;
};

/// Highest-density region {y : p(y) ≥ density_threshold} of a given probability (coverage).
struct HighestDensityRegion {
  std::vector<Interval> intervals;  ///< disjoint, increasing
  double density_threshold;         ///< in the user's units
};

}  // namespace cdens

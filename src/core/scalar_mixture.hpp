#pragma once
// A one-dimensional Gaussian mixture Σ_k π_k N(t; c_k, s_k²) with Σ π_k = 1: the conditional
// mixture at one x when y is scalar. Holds the root-finding behind CDF inversion and
// highest-density regions.

#include <vector>

#include "cdens/core/density_region.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

class ScalarMixture {
 public:
  /// Keeps the components with π_k > 0.
  ScalarMixture(const VectorView& probabilities, const VectorView& centers,
                const VectorView& scales);

  double pdf(double t) const;
  double cdf(double t) const;
  /// t with cdf(t) = p, for p in (0, 1), by Newton steps safeguarded by bisection.
  double quantile(double p) const;
  /// {t : pdf(t) ≥ f} with probability `coverage`; intervals in increasing order.
  HighestDensityRegion highest_density_region(double coverage) const;
  /// The probability of {t : pdf(t) ≥ threshold}.
  double probability_above(double threshold) const;

 private:
  /// Points around every component on which highest-density regions are searched.
  struct SearchGrid {
    std::vector<double> points;     ///< increasing
    std::vector<double> densities;  ///< pdf at the points
    std::vector<bool> linked;       ///< linked[g]: points g and g + 1 lie in one window
  };
  SearchGrid search_grid() const;

  /// Intervals where pdf ≥ threshold, read off the grid and refined to the crossing points.
  std::vector<Interval> superlevel_set(const SearchGrid& grid, double threshold) const;
  double crossing(double below, double above, double threshold) const;
  double probability_of(const std::vector<Interval>& intervals) const;

  std::vector<double> weights_;
  std::vector<double> centers_;
  std::vector<double> scales_;
  // The same components as arrays for pdf, whose exponentials Eigen vectorises: pdf is the inner
  // loop of every highest-density region (a few million calls per region for K = 100).
  Eigen::ArrayXd center_array_;
  Eigen::ArrayXd inverse_scales_;
  Eigen::ArrayXd density_factors_;  ///< π_k / (√(2π) s_k)
  double lowest_;   ///< a point below which almost no mass lies: min_k c_k − 10 s_k
  double highest_;  ///< max_k c_k + 10 s_k
};

/// A region found in standardised units t, moved to the user's units y = shift + scale · t (the
/// density threshold divides by the scale).
HighestDensityRegion rescaled(HighestDensityRegion region, double shift, double scale);

}  // namespace cdens::detail

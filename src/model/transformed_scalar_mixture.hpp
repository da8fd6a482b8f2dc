#pragma once
// The distribution of a one-dimensional y at one x for a conditional mixture with output
// transforms (output_transform.hpp): a weighted sum of parts, each a Gaussian mixture in a
// variable t of its own that maps to y either affinely (the untransformed trend groups, through
// y's standardisation) or through an output transform. Components below 1e-13 of the mass divided
// by their count are left out (at most 1e-13 of the mass, as ScalarMixture's searches leave out).
// In y the parts are no longer Gaussian, so the queries that ScalarMixture answers in closed form
// or by tailored root-finding are answered here numerically:
//
// - density and CDF exactly (the parts' closed forms at t(y), with the Jacobian);
// - quantiles: a single part's own (its Gaussian mixture's, mapped to y), or Newton steps on the
//   CDF safeguarded by bisection between the parts' own quantiles (a mixture's p-quantile lies
//   between the smallest and largest of its parts' ones), to a relative 1e-13;
// - highest-density regions, highest-density probabilities, the CRPS and ∫ p² on a grid: per
//   part the points of its Gaussian mixture's highest-density search in t (at most an eighth of a
//   width apart within ten widths of every component: a mode narrower than an even grid's step
//   would join or leave a region whole as its threshold passes, 3e-3 of the coverage with 256 even
//   points on a Yeo–Johnson KCDE of 1,200 rows), mapped to y; a bounded part's 256 points evenly
//   spaced in its t between its 1e-12 and 1 − 1e-12 quantiles and its 64 heaviest components' own
//   quantiles (below). Superlevel sets are read off the grid (crossings interpolated linearly
//   between grid points while a region's threshold is searched, then bisected on the density while
//   secant steps polish the threshold) with their probabilities from the exact CDF; the CRPS
//   integrates by the trapezoid rule with its derivative end correction (the density is F′), ∫ p²
//   by three-point Gauss–Legendre on each step (tests/cpp/test_output_transform.cpp checks all of
//   them against closed forms: the untransformed mixture's through the identity transform, and the
//   log-normal's).
//
// With output bounds [L, U] (output_support.hpp) every component of a part is truncated to the
// bounds mapped into its t and renormalised (truncated_normal.hpp), the density is 0 outside
// [L, U], and the grid holds L and U and nothing beyond them (a point beyond, inserted for a y
// outside, comes with a copy of the bound of density 0, so that the grid's rules never straddle
// the density's jump there); a truncated component puts its points at 13 of its own quantiles
// (from 10⁻⁴ to 1 − 10⁻⁴) in place of its centre and spreads, which say nothing of a component
// squeezed against a bound.

#include <cmath>
#include <vector>

#include "cdens/core/output_transform.hpp"
#include "cdens/core/support.hpp"
#include "cdens/core/types.hpp"
#include "model/scalar_mixture.hpp"
#include "model/truncated_normal.hpp"

namespace cdens::detail {

class TransformedScalarMixture {
 public:
  /// One part: components (probabilities summing to the part's weight, centres and spreads in
  /// its t), the map t → y: `transform`, or y = shift + scale · t where it is null, and for a
  /// transformed part the output bounds in t that its components are truncated to (±∞: none;
  /// a part that maps affinely is truncated to the mixture's bounds in y, and works in y).
  struct Part {
    std::vector<double> probabilities;
    std::vector<double> centers;
    std::vector<double> scales;
    const OutputTransform* transform = nullptr;
    double shift = 0.0;
    double scale = 1.0;
    double lower = -INFINITY;
    double upper = INFINITY;
  };

  /// Parts with no positive probability are dropped; the total probability must be positive.
  /// `bounds`: the output bounds in y, which the parts' own bounds are in their t. `tolerance`:
  /// the queries' tolerance τ ≥ 0, each part's ScalarMixture's (its Φ from a table at τ ≥ 10⁻⁹).
  explicit TransformedScalarMixture(std::vector<Part> parts, OutputBounds bounds = {},
                                    double tolerance = 0.0);

  double pdf(double y) const;
  double cdf(double y) const;
  double quantile(double p) const;
  HighestDensityRegion highest_density_region(double coverage) const;
  /// P(p(Y) ≥ p(y)).
  double highest_density_probability(double y) const;
  /// CRPS(F, y) = ∫ (F(z) − 1{z ≥ y})² dz.
  double crps(double y) const;
  /// ∫ p(y)² dy.
  double squared_norm() const;

 private:
  struct Prepared {
    double weight;          ///< Σ of the part's probabilities
    ScalarMixture mixture;  ///< normalised to total 1
    Part part;
    /// Where the part has bounds: its components truncated to them, and their probabilities
    /// normalised to total 1.
    std::vector<TruncatedComponent> truncated;
    std::vector<double> truncated_weights;
  };
  double to_y(const Prepared& part, double t) const;
  /// A part's density, CDF and quantile in its t: the Gaussian mixture's, or its truncated
  /// components'.
  double part_pdf(const Prepared& part, double t) const;
  double part_cdf(const Prepared& part, double t) const;
  double part_quantile(const Prepared& part, double p) const;
  /// pdf(y) and cdf(y) at every point of `ys` (any order) into `densities` and `probabilities`
  /// (either may be null): a part without bounds by its Gaussian mixture's sums over the points
  /// near each component (ScalarMixture::pdfs_and_cdfs), not every component at every point.
  void pdfs_and_cdfs(const std::vector<double>& ys, std::vector<double>* densities,
                     std::vector<double>* probabilities) const;
  /// Points of y on which grid-based queries work, increasing, with the density at each.
  void grid(std::vector<double>& points, std::vector<double>& densities) const;
  /// The grid with the point y in it (added where it is not a grid point): y's index.
  std::size_t grid_through(double y, std::vector<double>& points,
                           std::vector<double>& densities) const;
  /// The superlevel set {p ≥ threshold} read off the grid, its crossings refined by bisection
  /// of the density where `refine`.
  std::vector<Interval> superlevel_set(const std::vector<double>& points,
                                       const std::vector<double>& densities, double threshold,
                                       bool refine) const;
  double probability_of(const std::vector<Interval>& intervals) const;

  std::vector<Prepared> parts_;
  OutputBounds bounds_;
};

/// E[y] and E[y²] of y = transform⁻¹(t), t ~ N(center, spread²), by 16-node Gauss–Hermite
/// quadrature (within 1e-12 relative for a log-normal of log-spread up to 1): the moments of a
/// transformed component, for the mean and variance of a mixture with output transforms.
void transformed_component_moments(const OutputTransform& transform, double center, double spread,
                                   double& first, double& second);

/// E[y] and E[y²] of y = transform⁻¹(t) for a component truncated to output bounds (`component`
/// in t), by the truncated normal's quadrature rule (truncated_normal_rule).
void truncated_transformed_component_moments(const OutputTransform& transform,
                                             const TruncatedComponent& component, double& first,
                                             double& second);

}  // namespace cdens::detail

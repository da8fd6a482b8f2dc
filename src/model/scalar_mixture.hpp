#pragma once
// A one-dimensional Gaussian mixture Σ_k π_k N(t; c_k, s_k²) with Σ π_k = 1: the conditional
// mixture at one x when y is scalar. Holds the root-finding behind CDF inversion and
// highest-density regions.
//
// Highest-density searches (highest_density_region, highest_density_probability) work on the
// searched components: all of them but the least probable ones of total probability at most
// kNegligibleMass, whose density is at most kNegligibleMass / (√(2π) min_k s_k) anywhere. The
// probabilities of the sets found use every component, so a value differs from the exact one
// only through sets whose density lies within that bound of the threshold
// (tests/cpp/test_scalar_mixture.cpp checks the searches against a brute-force one).

#include <optional>
#include <utility>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::detail {

class ScalarMixture {
 public:
  /// Total probability of the components that highest-density searches may leave out.
  static constexpr double kNegligibleMass = 1e-13;
  /// How far from its centre, in its widths, a component adds its terms to a sum over points
  /// (pdfs_and_cdfs, and the trapezoidal sums at tolerance 0).
  static constexpr double kExactWindowWidths = 10.0;
  /// The least tolerance at which every CDF takes each component's Φ from NormalCdfTable.
  static constexpr double kTabulatedCdfTolerance = 1e-9;

  /// Keeps the components with π_k > 0, for queries that answer within `tolerance` τ ≥ 0 (0:
  /// exactly). At τ ≥ kTabulatedCdfTolerance every CDF (cdf, pdfs_and_cdfs and the searches and
  /// scores built on them) takes each component's Φ from NormalCdfTable, within
  /// kTabulatedNormalCdfError of the exact one (the weights sum to one: at most 0.54 % of τ); at
  /// τ > 0 the trapezoidal sums of mean_absolute_difference and squared_norm take the coarsest
  /// grid and narrowest windows whose own errors stay within τ/16 (trapezoid_grid).
  ScalarMixture(const VectorView& probabilities, const VectorView& centers,
                const VectorView& scales, double tolerance = 0.0);

  double pdf(double t) const;
  /// From the components near t (ComponentArrays::near), those below it counted whole: within
  /// 8·10⁻²⁴ per component of the sum over every one.
  double cdf(double t) const;
  /// pdf and cdf at every point of `t` (any order), into `densities` and `probabilities` (either
  /// may be null). A component adds its terms to the points within ten of its widths only: beyond
  /// them its density is below 2·10⁻²² of its peak, and its CDF within 8·10⁻²⁴ of 0 below and of
  /// its weight above, which a prefix sum adds. The cost is O((K + G) log G) and the points in
  /// each component's window, where pdf and cdf at every point cost G·K.
  void pdfs_and_cdfs(const std::vector<double>& t, std::vector<double>* densities,
                     std::vector<double>* probabilities) const {
    pdfs_and_cdfs_within(t, kExactWindowWidths, densities, probabilities);
  }
  /// t with cdf(t) = p, for p in (0, 1), by Newton steps safeguarded by bisection.
  double quantile(double p) const;
  /// E|T − t|, in closed form: Σ_k π_k A(c_k − t, s_k²) with A(m, v) = E|N(m, v)|.
  double absolute_deviation(double t) const;
  /// E|T − T′| for T, T′ independent draws: the pairs' closed form Σ_kl π_k π_l A(c_k − c_l,
  /// s_k² + s_l²) for a few components, otherwise 2∫F(1 − F) by the trapezoidal rule at a spacing
  /// h of a fraction of the narrowest width s (where it sums fewer terms: pairs_or_trapezoid).
  /// F(1 − F) of Gaussians of width ≥ s has a Fourier transform decaying as e^{−s²ω²/4}, so the
  /// rule's error is of relative order e^{−π²s²/h²} (its aliasing term): e^{−4π²} ≈ 7·10⁻¹⁸ at
  /// h = s/2, the exact mixture's; at a tolerance τ > 0, τ/16 (trapezoid_grid).
  double mean_absolute_difference() const;
  /// The CRPS of the observation t: E|T − t| − ½ E|T − T′|.
  double crps(double t) const;
  /// ∫ pdf(t)² dt: the pairs' closed form Σ_kl π_k π_l N(c_k; c_l, s_k² + s_l²) for a few
  /// components, otherwise the trapezoidal rule on mean_absolute_difference's grid and windows,
  /// whose error is of the same order (pdf² decays as e^{−s²ω²/4} too; beyond its window a
  /// component's density is below τ/8 of its peak).
  double squared_norm() const;
  /// {t : pdf(t) ≥ f} with probability `coverage`; intervals in increasing order.
  HighestDensityRegion highest_density_region(double coverage) const;
  /// P(pdf(T) ≥ pdf(t)) for T from the mixture: the probability of the smallest highest-density
  /// region that holds t (of the searched components' density, whose set always holds t: a
  /// threshold at a point just beside a mode can have a superlevel set narrower than the grid).
  double highest_density_probability(double t) const;
  /// Points spaced at most s_k / 8 within c_k ± 10 s_k of every searched component (those of the
  /// highest-density searches' grid but its extrema), increasing: O(K log K + points).
  std::vector<double> search_points() const;

 private:
  /// Points around every searched component on which highest-density regions are searched, and
  /// every local extremum of the searched density between them: between two linked points the
  /// density is monotone, so each crossing of a threshold lies alone between two points.
  struct SearchGrid {
    std::vector<double> points;     ///< increasing
    std::vector<double> densities;  ///< searched density at the points
    std::vector<bool> linked;       ///< linked[g]: points g and g + 1 lie in one window
  };
  /// The grid, computed on the first call (every search of the mixture shares it: the regions of
  /// several coverages and the HPD value of one observation cost one grid).
  const SearchGrid& search_grid() const;
  /// The grid's points and links without densities: the walk through the components' windows.
  SearchGrid window_walk() const;
  /// The grid's densities, slopes and extrema over the walk's points.
  SearchGrid grid_with_extrema(SearchGrid walk) const;
  /// Chooses the searched components (once; a mixture serves one thread).
  void prepare_search() const;

  /// The searched components' density and its first two derivatives at t.
  double searched_pdf(double t) const;
  void searched_derivatives(double t, double& density, double& slope, double& curvature) const;

  /// Intervals where the searched density is ≥ threshold, read off the grid and refined to the
  /// crossing points; adds Σ 1/|p′| over the refined crossings to `inverse_slopes` when given
  /// (the derivative of the set's probability in the threshold is −threshold times that sum).
  std::vector<Interval> superlevel_set(const SearchGrid& grid, double threshold,
                                       double* inverse_slopes = nullptr) const;

  double probability_of(const std::vector<Interval>& intervals) const;
  /// Σ_kl π_k π_l pair(k, l) over every pair where that takes fewer terms than the trapezoidal
  /// rule on trapezoid_grid's grid over [lowest_, highest_] (its points, and each component's
  /// points within its window; a grid of more than 2²⁰ points only where there are more
  /// components than points); otherwise the rule's step times
  /// sum_on_grid(the grid's inner points, its windows' widths), the sum of the integrand over them
  /// (negligible at both ends).
  template <class Pair, class SumOnGrid>
  double pairs_or_trapezoid(const Pair& pair, const SumOnGrid& sum_on_grid) const;
  /// pdfs_and_cdfs with each component's terms within `widths` of its widths.
  void pdfs_and_cdfs_within(const std::vector<double>& t, double widths,
                            std::vector<double>* densities,
                            std::vector<double>* probabilities) const;
  /// The trapezoidal sums' spacing, in narrowest widths, and each component's window, in its
  /// widths. At τ = 0 a spacing of 1/2 (aliasing 7·10⁻¹⁸) and windows of kExactWindowWidths; at
  /// τ > 0 the spacing r with e^{−π²/r²} = τ/16 and the windows w with ½e^{−w²/2} = τ/16 (≥ Φ(−w):
  /// every F on the grid within τ/16, every density within τ/8 of its components' peaks), neither
  /// finer than τ = 0's. At the default τ = 10⁻⁶: r = 0.77 and w = 5.6, 15 points a component
  /// where there were 40 (25 at r = 0.6, w = 7.5 before; auto's pool on protein: the CRPS of its
  /// 4,573 test rows 4.6 → 4.2 s).
  struct TrapezoidGrid {
    double spacing;
    double window_widths;
  };
  TrapezoidGrid trapezoid_grid() const;

  /// use(Φ): Φ of a standardised point, tabulated or exact.
  template <class Use>
  auto with_component_cdf(const Use& use) const;

  double tolerance_ = 0.0;
  bool tabulated_cdf_ = false;
  std::vector<double> weights_;
  std::vector<double> centers_;
  std::vector<double> scales_;
  /// Components as arrays in increasing order of centre, whose exponentials Eigen vectorises.
  /// A sum at t over the components near it (centres within ten widths of the widest, `reach`)
  /// leaves out terms below 2·10⁻²² of their peak densities, and CDFs within 8·10⁻²⁴ of their
  /// weight (those below) or of 0 (those above).
  struct ComponentArrays {
    Eigen::ArrayXd centers;
    Eigen::ArrayXd inverse_scales;
    Eigen::ArrayXd density_factors;      ///< π_k / (√(2π) s_k)
    Eigen::ArrayXd weights;              ///< π_k
    std::vector<double> weights_before;  ///< [k]: Σ π_l over l < k (one more entry: the total)
    double reach = 0.0;
    ComponentArrays() = default;
    /// The components `kept` (indices into the three lists), sorted by centre.
    ComponentArrays(const std::vector<double>& weights, const std::vector<double>& centers,
                    const std::vector<double>& scales, std::vector<std::size_t> kept);
    /// [first, end) of the components whose centres lie within `reach` of t.
    std::pair<Index, Index> near(double t) const;
    /// The density at t of the components near it: the sum over every one less terms below
    /// 2·10⁻²² of their peaks (the searched density; the slope of the quantiles' Newton steps).
    double density_near(double t) const;
    /// visit(k, first, last, z) for every component k, where [first, last) is the run of the
    /// increasing `points` within `widths` of its widths and z their offsets (t − c_k) / s_k (one
    /// buffer for every window): beyond ten its density is below 2·10⁻²² of its peak and its CDF
    /// within 8·10⁻²⁴ of 0 or of its weight, so sums over points cost each window's points.
    template <class Visit>
    void for_each_window(const Eigen::Ref<const Eigen::ArrayXd>& points, double widths,
                         const Visit& visit) const;
  };
  // The searched components: the inner loop of every highest-density search. Chosen on the
  // first search.
  mutable bool search_ready_ = false;
  mutable ComponentArrays searched_;
  mutable std::optional<SearchGrid> grid_;  ///< search_grid(), once computed
  ComponentArrays all_;                     ///< every component
  double lowest_;   ///< a point below which almost no mass lies: min_k c_k − 10 s_k
  double highest_;  ///< max_k c_k + 10 s_k
};

/// A region found in standardised units t, moved to the user's units y = shift + scale · t (the
/// density threshold divides by the scale).
HighestDensityRegion rescaled(HighestDensityRegion region, double shift, double scale);

}  // namespace cdens::detail

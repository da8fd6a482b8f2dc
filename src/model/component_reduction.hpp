#pragma once
// The components of a one-dimensional y at one input, reduced to the few its queries need
// (docs/methods/kcde.md, "Queries of large models"). A KCDE of n rows is a mixture of n Gaussians
// at every x; its CDF, quantiles, highest-density regions and CRPS walked all of them, for every
// query row, in every step of their searches. Components of one trend group and one width s whose
// centres lie within a bin of width κ·s are replaced by one Gaussian of the same probability, mean
// and variance (moment matching), and the least probable bins are dropped.
//
// The error, for a query tolerance τ (κ = (τ / 0.06)^(1/3), 0.0255 for τ = 1e−6): a bin of
// probability W whose centres V spread over δ = κ·s, replaced by U ~ N(v̄, σ²) convolved with the
// same kernel, changes E h(V) by at most W·sup|h‴|·(E|V − v̄|³ + E|U − v̄|³)/6 ≤ 0.0749·W·sup|h‴|·δ³
// (the first two moments agree; E|V − v̄|³ ≤ δσ² ≤ δ³/4, E|U − v̄|³ = 1.596 σ³ ≤ 0.1995 δ³). For
// the CDF, h(v) = Φ((t − v)/s) and sup|h‴| = φ(0)/s³: every CDF value moves by at most
// 0.0299·κ³ = τ/2. The bins dropped (each of probability at most τ/(2·bins)) take at most τ/2 more,
// and the kept ones are renormalised: every probability the queries report (CDF, PIT,
// highest-density probabilities) is within τ of the exact mixture's, and every quantile's exact
// CDF within τ of its probability. For the density, sup|h‴| = 0.5504/s⁴: within 0.0412·κ³/s =
// 0.69·τ/s. τ = 0 merges only components with the same centre and width (ties), exactly.

#include <cstddef>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::detail {

/// Components of a one-dimensional mixture, each of a trend group.
struct ScalarComponentList {
  std::vector<double> weights;
  std::vector<double> centers;
  std::vector<double> scales;
  std::vector<std::size_t> groups;

  void push_back(double weight, double center, double scale, std::size_t group) {
    weights.push_back(weight);
    centers.push_back(center);
    scales.push_back(scale);
    groups.push_back(group);
  }
};

/// The largest tolerance a list of components is reduced within: wider bins would merge its
/// whole range, and the bins dropped (τ/2 of it) would leave nothing to renormalise. A part of a
/// mixture of small share may take a tolerance above τ (neighbour_components.hpp), up to this.
inline constexpr double kLargestReductionTolerance = 0.01;

/// The bin width κ, in units of the components' width, for a query tolerance τ ≥ 0.
double reduction_bin_width(double tolerance);

/// The components with probabilities `weights` (≥ 0; zero ones are left out), `centers` and
/// `scales` of trend groups `groups`, sorted by group, then scale, then centre, reduced within
/// `tolerance` (see above) into `reduced` (cleared first): probabilities summing to one, and a
/// bin's centre and width those of its merged Gaussian.
void reduce_components(const VectorView& weights, const VectorView& centers,
                       const VectorView& scales, const std::vector<std::size_t>& groups,
                       double tolerance, ScalarComponentList& reduced);

/// The last step of the reduction within `tolerance` (none at 0): the bins of `reduced` of
/// probability at most τ/(2·bins) of their total are dropped and the rest renormalised to sum to
/// one.
void drop_negligible_bins(double tolerance, ScalarComponentList& reduced);

}  // namespace cdens::detail

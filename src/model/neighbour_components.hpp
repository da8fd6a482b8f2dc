#pragma once
// The reduced components of a one-dimensional y at one input of a mixture whose gate is a Gaussian
// kernel (KCDE, NW-CDE, RKDE: ConditionalGate::gaussian_kernel), found without visiting all of its
// n components (docs/methods/kcde.md, "Queries of large models"). The gate's weights are
//
//   π_k(z) = (1 − δ)[(1 − ε) c_k K_k(z) / Σ_l c_l K_l(z) + ε c_k / Σ_l c_l],   π_B = δ,
//
// (kernels K_k(z) = e^{−½‖(z − u_k)/h‖²}, row weights c_k, marginal weight ε, a broad last
// component B of weight δ). The kernel part's components are those of the points that carry all
// of its kernel sum but τ/4 (kernel_neighbours.hpp), renormalised, reduced within
// 3τ/(8(1 − δ)(1 − ε)); the marginal part does not depend on z and is reduced within
// 3τ/(8(1 − δ)ε) once (3τ/(4(1 − δ)) for the kernel part where ε = 0; neither within more than
// 0.01). Scaled by their shares, the two reductions move every probability by at most 3τ/8 each,
// so the queries' probabilities move by at most τ/4 + 3τ/4 = τ, as the reduction of all
// components does.
//
// The reduction is component_reduction.hpp's, on fixed bins: for each trend group and width s, a
// grid of bins of width κ·s over the components' centres (κ for the part's tolerance), so that
// each point's bin and its centre's offset in it are known before any query, and a query adds
// each neighbour's probability p, p·offset and p·offset² to its bin as it is found (no list of
// the neighbours' components to sort and merge: that took half of a quantile query at 10^6 rows).
// A bin's centres lie within κ·s of each other, as the reduction's error bound asks.

#include <cstdint>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "kernel_sums/kernel_neighbours.hpp"
#include "model/component_reduction.hpp"

namespace cdens::detail {

/// The components merged by trend group, width and centre (ConditionalMixture's merged list):
/// the merged component of every component and each merged one's centre, width and group.
struct MergedComponents {
  std::vector<Index> merged_of;
  Vector centers;
  Vector scales;
  std::vector<std::size_t> groups;
};

class NeighbourComponents {
 public:
  /// For the gate `kernel` over `merged` (every component merged, none an atom's), within the
  /// query tolerance `tolerance` > 0.
  NeighbourComponents(const GaussianKernelCenters& kernel, const MergedComponents& merged,
                      double tolerance);

  /// The reduced components at the standardised input z (d_x values), into `reduced`.
  void components_at(const double* z, ScalarComponentList& reduced) const;
  /// `draws.size()` components (indices of the model's K) drawn at the standardised input z from
  /// the gate's weights, the kernel part's from the points that carry all of its sum but τ/4
  /// (within τ/4 of the gate's distribution in total variation), into `draws`.
  void draw_components(const double* z, Rng& rng, std::vector<Index>& draws) const;

 private:
  /// A grid of fixed bins over the components of the kernel points: each point's bin (the bins
  /// numbered in the order of group, width and centre) and its centre's offset from the bin's
  /// middle, in the tree's order of the points; each bin's middle, width and group.
  struct Bins {
    std::vector<std::int32_t> of_point;
    std::vector<double> offset_of_point;
    std::vector<double> middles;
    std::vector<double> scales;
    std::vector<std::size_t> groups;
  };
  /// The bins of width κ·s of the components `merged` for the reduction tolerance `tolerance`.
  Bins bins_for(const MergedComponents& merged, double tolerance) const;
  /// The points of the kernel part at z that carry all of its sum but τ/4.
  void neighbours_of(const double* z, KernelNeighbours::Found& found) const;
  /// The components of probabilities `weights` (in the tree's order, any positive scale; those
  /// of the points `positions`, or of every point where it is null) summed into `bins` and
  /// reduced within `tolerance` into `reduced` (cleared first; probabilities summing to one).
  void reduce_in_bins(const Bins& bins, const std::vector<Index>* positions,
                      const std::vector<double>& weights, double tolerance,
                      ScalarComponentList& reduced) const;

  Vector inverse_widths_;
  KernelNeighbours neighbours_;
  double tolerance_;
  double kernel_tolerance_ = 0.0;               ///< the kernel part's reduction tolerance
  double kernel_share_;                         ///< (1 − δ)(1 − ε)
  double marginal_share_;                       ///< (1 − δ) ε
  Index broad_component_;                       ///< the broad component's index (−1 without one)
  Bins kernel_bins_;                            ///< the kernel part's bins
  ScalarComponentList broad_;                   ///< the broad component at its share δ, or none
  ScalarComponentList marginal_;                ///< the marginal part, reduced, summing to one
  std::vector<double> cumulative_row_weights_;  ///< Σ_{l ≤ k} c_l, for the marginal part's draws
};

}  // namespace cdens::detail

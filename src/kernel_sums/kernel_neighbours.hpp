#pragma once
// The points of a Gaussian kernel sum that carry all of it but a stated fraction. For points p_i
// with weights w_i ≥ 0 and a query q (unit widths, as in kernel_sums.hpp), S = Σ_i w_i
// e^{−½‖q − p_i‖²}; the search returns a set N of points whose terms sum to at least (1 − τ) S.
// A best-first descent of a k-d tree (the node of largest bound W_N e^{−½ δ_min(N)} first, δ_min
// the squared distance from q to its box) opens nodes until the bounds of the nodes not opened sum
// to at most τ times the terms of the points found; an opened leaf gives all of its points. Its
// cost grows with the points that matter near q, not with n: the one-dimensional queries of a
// large kernel mixture take the components of these points at each input instead of all n
// (docs/methods/kcde.md, "Queries of large models").

#include <vector>

#include "cdens/core/types.hpp"
#include "kernel_sums/kd_tree.hpp"

namespace cdens {

class KernelNeighbours {
 public:
  /// Over `points` (d × n) with `weights` (n, finite, ≥ 0).
  KernelNeighbours(const MatrixView& points, const VectorView& weights);

  struct Found {
    std::vector<Index> positions;   ///< the points' positions in the tree's order (position())
    std::vector<double> log_terms;  ///< log w_i − ½‖q − p_i‖² of each
    /// e^{log term − shift} of each, for one shift (within 300 of the largest log term): the
    /// terms relative to one another, without overflow of those that matter.
    std::vector<double> weights;
  };
  /// The points of `query` (d values) whose terms sum to at least 1 − `tolerance` of S, into
  /// `found` (cleared first); none where every weight is zero.
  void search(const double* query, double tolerance, Found& found) const;

  /// The column of the points given that is the tree's point at `position`.
  Index column(Index position) const { return tree_.order()[static_cast<std::size_t>(position)]; }
  /// The tree's order of the points: order()[position] is a column of the points given.
  const std::vector<Index>& order() const { return tree_.order(); }

 private:
  KdTree tree_;
  Vector log_weights_;  ///< log w_i in the tree's order (−∞ for a zero weight)
  std::vector<double> log_node_weights_;  ///< log of each node's weight
};

}  // namespace cdens

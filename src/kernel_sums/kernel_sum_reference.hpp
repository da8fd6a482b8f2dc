#pragma once
// The reference side of the kernel-sum engine (kernel_sums.hpp), prepared once for every path:
// points with a positive weight, centred, with their normalised log-weights, and the k-d trees the
// tree paths search, each built on its first use and kept.

#include <memory>
#include <vector>

#include "cdens/core/types.hpp"
#include "kernel_sums/kd_tree.hpp"

namespace cdens {

/// Reference points of S_j = Σ_i w_i exp(−½‖q_j − p_i‖²), stored as
/// S_j = W Σ_i ŵ_i exp(−½‖q̃_j − p̃_i‖²) with W = Σ_i w_i, ŵ_i = w_i / W and coordinates centred
/// on the points' mean (q̃ = q − origin): centring keeps the GEMM form of the squared distances
/// (‖p̃‖² + ‖q̃‖² − 2 p̃ᵀq̃) free of the cancellation an offset would cause. Points of zero
/// weight add nothing and are left out.
struct KernelSumReference {
  Matrix points;         ///< d × n: p̃_i, the points of positive weight, centred
  Vector weights;        ///< ŵ_i, summing to 1
  Vector log_weights;    ///< log ŵ_i
  Vector offsets;        ///< log ŵ_i − ½‖p̃_i‖², the point's part of the exponent
  Vector origin;         ///< the mean subtracted from points and queries
  double log_total = 0;  ///< log W
  double largest_squared_norm = 0;  ///< max_i ‖p̃_i‖²
  Index points_given = 0;           ///< the number of points given, kept or not
  /// The column of the points given that each point kept is (empty where every point is kept).
  std::vector<Index> kept_columns;

  /// InvalidArgument for weights that are negative, not finite, all zero, or disagree in count.
  KernelSumReference(const MatrixView& all_points, const VectorView& all_weights);

  Index dimension() const { return points.rows(); }
  Index size() const { return points.cols(); }
  /// The queries centred as the points are (q̃_j = q_j − origin).
  Matrix centred(const MatrixView& queries) const;
  /// log Σ_i ŵ_i exp(−½‖q̃ − p̃_i‖²) by a max-shifted log-sum-exp over every point, each
  /// exponent from the differences q̃ − p̃_i: the exact sum where the plain one underflows (a
  /// query far from every point) or where the GEMM form loses the exponents (below).
  double log_space_sum(const VectorView& centred_query) const;
  /// Σ_i ŵ_i f_i K_i / Σ_i ŵ_i K_i (K_i = exp(−½‖q̃ − p̃_i‖²)) for each row of `factors` (one
  /// column per point kept, in this order), by the same max-shifted exponents as log_space_sum.
  Vector log_space_means(const VectorView& centred_query, const Matrix& factors) const;
  /// The rows of `factors` (one column per point given) at the points kept.
  Matrix factors_of_kept(const MatrixView& factors) const;
  /// Whether the GEMM form's rounding, up to (d + 2) ε (‖p̃_i‖² + ‖q̃‖²) in an exponent, could
  /// exceed 1e−8 for this query: coordinates far beyond the points' spread in kernel widths (an
  /// outlier point moves the mean; a query far from it). Such queries take log_space_sum.
  bool loses_exponents(const VectorView& centred_query) const;
  /// The k-d tree of the points and weights with leaves of at most `leaf_size` points, built on
  /// its first use (thread-safe) and kept: a reference that answers queries block after block (a
  /// model's sums) builds each tree once, where a tree of 10^6 points takes about a second.
  /// Copies of the reference share the trees.
  const KdTree& tree(Index leaf_size) const;

 private:
  struct Trees;
  std::shared_ptr<Trees> trees_;
};

}  // namespace cdens

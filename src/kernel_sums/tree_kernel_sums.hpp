#pragma once
// The tree path of the kernel-sum engine: single-tree traversal of a k-d tree with bounded
// pruning (Gray & Moore 2001, "N-body problems in statistical learning", §4; Gray & Moore 2003,
// "Nonparametric density estimation: toward computational tractability").

#include "kernel_sums/kd_tree.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens {

/// log Σ_i ŵ_i exp(−½‖q̃_j − p̃_i‖²) for every centred query, each with relative error at most
/// `relative_tolerance` (plus rounding). `tree` is built over reference.points with
/// reference.weights.
///
/// For a query, a node whose squared distances to the query lie in [δ_min, δ_max] has kernel
/// values in [K_min, K_max] = [e^−δ_max/2, e^−δ_min/2]. Nodes are visited nearest first; a node of
/// weight W_N is replaced by W_N (K_min + K_max)/2, an error of at most W_N (K_max − K_min)/2,
/// when the errors so taken, this one included, stay within relative_tolerance · L · (W_done +
/// W_N): L is a lower bound of the whole sum (exact leaves plus W K_min of the nodes not yet
/// opened), W_done the weight already accounted for. The total error is then at most
/// relative_tolerance · L ≤ relative_tolerance · S. Unused budget passes on to later nodes, as in
/// Gray & Moore; departing from them, the bound is relative to the running lower bound of the
/// whole sum, not a fixed absolute tolerance. A query whose sum underflows is redone with the
/// exponents shifted by its nearest neighbour's, and if even that sum is below e^−600 (extreme
/// weights) by the exact log-space sum.
Vector tree_log_kernel_sums(const KdTree& tree, const KernelSumReference& reference,
                            const MatrixView& queries, double relative_tolerance, int threads);

/// The work of tree_log_kernel_sums on some queries, for the engine's choice of path: the mean
/// per query of the nodes it bounds and of the points it sums exactly.
struct TreeWork {
  double nodes_per_query = 0.0;
  double points_per_query = 0.0;
};

/// TreeWork measured on the given (centred) queries, on one thread.
TreeWork measure_tree_work(const KdTree& tree, const KernelSumReference& reference,
                           const MatrixView& queries, double relative_tolerance);

}  // namespace cdens

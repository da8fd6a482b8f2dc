#pragma once
// The tree path of the kernel-sum engine for many queries: a dual tree whose leaves are blocks of
// up to 256 points and 32 queries (Gray & Moore 2001, dual-tree N-body methods), with the base
// case of the exact path (one GEMM and vectorised exponentials per pair of blocks).

#include "kernel_sums/kd_tree.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens {

/// The largest leaf of the points' block tree: one GEMM of at most 256 × kQueryBlock exponents.
inline constexpr Index kKernelSumBlock = 256;
/// The largest leaf of the queries' block tree. Smaller query blocks have smaller boxes, whose
/// nearest point blocks are fewer: a KCDE of 10^6 rows (d = 5, 10^5 queries) summed 5.0 % of the
/// block pairs with query blocks of 256 (5.4 s), 3.5 % with 64 (3.9 s), 3.0 % with 32 (3.6 s);
/// point blocks of 128 beside those of 32 summed 2.5 % but took longer (3.8 s).
inline constexpr Index kQueryBlock = 32;

/// log Σ_i ŵ_i exp(−½‖q̃_j − p̃_i‖²) for every centred query, each within relative error
/// `relative_tolerance`. `point_tree` is a KdTree over reference.points with reference.weights and
/// leaves of at most kKernelSumBlock points.
///
/// The queries are split into blocks of at most kQueryBlock by a k-d tree of their own. For a block
/// of queries Q, the point blocks P are taken nearest first (by the distance between the boxes) and
/// summed exactly; the blocks not yet summed add at most R = Σ_P W_P e^−dist(Q,P)²/2 to any query
/// of Q. Once R / 2 ≤ relative_tolerance · min_{j∈Q} (sum so far of query j), the rest is replaced
/// by R / 2: every sum is then within relative_tolerance of its exact value (the sum so far is a
/// lower bound of it). Departing from Gray & Moore, the recursion is flat (blocks against blocks,
/// ordered by distance) and the base case is a GEMM, so the exact work runs at the exact path's
/// rate. `blocks_summed` (if not null) receives the fraction of block pairs summed exactly.
///
/// With `factors` (C × n, ≥ 0, a column per point of the reference) and `means` (not null), the
/// same pass also gives M_cj = Σ_i ŵ_i f_ic K_ij / Σ_i ŵ_i K_ij into `means` (C × m): the blocks
/// summed add f_ic times their terms (one GEMM per pair of blocks beside the exponentials), and
/// the blocks left out add half of their bound Σ_P max_{i∈P} f_ic W_P e^−dist(Q,P)²/2, at most
/// max_i f_ic times the sum's. The sums' error is at most ε S_j, each factor sum's at most
/// ε max_i f_ic S_j, so every M_cj is within 2ε max_i f_ic of its exact value. Where a sum
/// underflows, the query's means are exact by log_space_means.
Vector block_tree_log_kernel_sums(const KdTree& point_tree, const KernelSumReference& reference,
                                  const MatrixView& queries, double relative_tolerance, int threads,
                                  double* blocks_summed = nullptr, const Matrix* factors = nullptr,
                                  Matrix* means = nullptr);

}  // namespace cdens

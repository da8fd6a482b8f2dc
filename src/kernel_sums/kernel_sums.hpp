#pragma once
// The kernel-sum engine: for reference points p_i with weights w_i ≥ 0 and query points q_j,
//
//   S_j = Σ_i w_i exp(−½ ‖q_j − p_i‖²),
//
// returned as log S_j. Every Gaussian kernel-sum query with one shared (per-dimension) width is
// this sum once the coordinates are divided by the widths: the Parzen window's log-density, the
// kernel sums of ε-KDE, NW-CDE and RKDE. Four paths compute it:
//
// * exact: blocks of queries against blocks of points, exponents by one GEMM, Eigen's vectorised
//   exp, column sums; log space (max-shifted) only for the queries whose sum underflows;
// * tree: k-d trees with bounded pruning (Gray & Moore 2001), so every S_j is within the
//   tolerance of the exact sum: for many queries a dual tree of blocks of 256 points and 32
//   queries, blocks summed exactly (as the exact path) nearest first until the bound of the rest
//   is within the tolerance; for a few queries a single tree per query, a node whose kernel
//   values lie in [K_min, K_max] replaced by its weight times (K_min + K_max)/2 when that error
//   fits the query's budget;
// * binned: for queries on a regular grid in d ≤ 3, linear binning of the points onto a grid and
//   the convolution with the sampled kernel by FFT (Silverman 1982, Wand 1994); grid points where
//   the error bound exceeds the tolerance are recomputed, by the same convolutions summed directly
//   or by the exact path;
// * gauss_transform: for scattered queries in d ≤ 3, the fast Gauss transform (Greengard & Strain
//   1991): boxes of queries, each with the Taylor series of the points near it — or, where the
//   series would cost more, the direct sum of those points — and a computed bound per box;
//   queries whose bound exceeds the tolerance take the tree or exact path.
//
// The engine chooses the path by an estimate of its cost (docs/methods/kernel_sums.md); every
// path honours the same tolerance.

#include <string>

#include "cdens/core/types.hpp"

namespace cdens {

/// The algorithm that computed a set of kernel sums.
enum class KernelSumPath {
  automatic,        ///< as an option: let the engine choose by cost
  exact,            ///< every term, in blocks (no approximation)
  tree,             ///< k-d tree with bounded pruning
  binned,           ///< linear binning and FFT convolution on a grid (d ≤ 3)
  gauss_transform,  ///< Taylor series about boxes of queries (d ≤ 3), the rest tree or exact
};

/// "automatic", "exact", "tree", "binned" or "gauss_transform".
std::string to_string(KernelSumPath path);

struct KernelSumOptions {
  /// Every returned log S_j is within this of the exact log-sum (up to rounding): the tree,
  /// binned and Gauss transform paths keep the relative error of S_j below 1 − exp(−log_tolerance).
  /// The default makes log-densities agree with the exact computation to 1e−6.
  double log_tolerance = 1e-6;
  /// The path to take; automatic chooses by cost.
  KernelSumPath path = KernelSumPath::automatic;
  /// OpenMP threads (0: the OpenMP default). The result does not depend on the thread count.
  int threads = 0;
};

/// Log-sums and the path that computed them.
struct KernelSums {
  Vector log_sums;  ///< log S_j, one per query; −∞ only when every weight is zero
  KernelSumPath path = KernelSumPath::exact;
};

/// log S_j for the queries (d × m) against the points (d × n) with weights (n, finite, ≥ 0), in
/// units where the kernel has unit width. InvalidArgument for shapes that disagree, negative
/// weights or a bad tolerance.
KernelSums gaussian_kernel_log_sums(const MatrixView& points, const VectorView& weights,
                                    const MatrixView& queries,
                                    const KernelSumOptions& options = {});

struct KernelSumReference;
/// The same against points prepared once (KernelSumReference), for a model queried repeatedly.
KernelSums gaussian_kernel_log_sums(const KernelSumReference& reference, const MatrixView& queries,
                                    const KernelSumOptions& options = {});

/// The log-sums and, for factors f_ic ≥ 0 of the points (C × n, a column per point given to the
/// reference), the kernel-weighted means M_cj = Σ_i w_i f_ic K_ij / Σ_i w_i K_ij (C × m): the
/// moments of a kernel mixture's component centres at each query. Each M_cj is within
/// 2ε·max_i f_ic of its exact value (ε = 1 − e^{−log_tolerance}). Where the tree path is taken it
/// is the dual tree of blocks for any number of queries, which sums every factor in its one pass
/// (block_tree_kernel_sums.hpp); the other paths sum each factor's weights w_i f_ic as a kernel
/// sum of its own. InvalidArgument for factors of
/// another shape, negative or not finite.
struct KernelMeans {
  KernelSums sums;
  Matrix means;  ///< C × m
};
KernelMeans gaussian_kernel_means(const KernelSumReference& reference, const MatrixView& factors,
                                  const MatrixView& queries, const KernelSumOptions& options = {});

}  // namespace cdens

#pragma once
// The binned path of the kernel-sum engine, for queries on a regular grid in d ≤ 3: linear
// binning of the points onto a finer grid and the convolution with the sampled kernel by FFT
// (Silverman 1982, "Kernel density estimation using the fast Fourier transform"; Wand 1994,
// "Fast computation of multivariate kernel estimators" — linear binning, zero padding).
//
// Departing from them, the binning grid is not fixed in advance: it refines the query grid by an
// integer factor, and every grid point carries a computed bound on its error, so that the
// engine's relative tolerance holds at each; grid points where it cannot (the far tails, where
// the FFT's rounding dominates) are recomputed exactly. The bound (docs/methods/kernel_sums.md):
// multilinear binning replaces e^−‖q−p‖²/2 by its multilinear interpolant over p's cell, off by
// at most Σ_k (δ_k²/8) max_cell |∂²_k e^−‖q−y‖²/2| (the tensor-product interpolation error); with
// |∂²_k| ≤ (w_k² + 1) e^−w_k²/2 Π_{l≠k} e^−w_l²/2 (w = q − y) this is, summed over the points, a
// sum of d convolutions of the binned weights with separable kernels, computed by the same FFT.
// Points farther than U along an axis add at most e^−(U−δ)²/2 in all, the FFT's rounding at most
// 5 ε log₂(N) ‖c‖₂ ‖K̂‖_∞ per convolution (c the binned weights, K̂ the kernel's spectrum).

#include <optional>

#include "kernel_sums/kernel_sum_reference.hpp"
#include "kernel_sums/regular_grid.hpp"

namespace cdens {

/// The binning grid chosen for a relative tolerance: per dimension the refinement r_k of the
/// query spacing (δ_k = Δ_k / r_k), the node range, the FFT length, the kernel's reach.
struct BinnedPlan {
  double radius = 0.0;  ///< U: the kernel is cut at |t_k δ_k| > U
  std::vector<Index> refinement;
  std::vector<double> cell;     ///< δ_k
  std::vector<Index> first;     ///< t_lo: the binning grid's first node is a_k + t_lo δ_k
  std::vector<Index> nodes;     ///< M_k
  std::vector<Index> reach;     ///< L_k: kernel offsets |t| ≤ L_k
  std::vector<Index> fft_size;  ///< N_k ≥ M_k + L_k
  double cells = 0.0;           ///< Π N_k
};

/// The plan for `grid` (centred, in units of the kernel width) and the points of `reference`,
/// or nothing when its FFT would exceed `cell_budget` cells or d > 3.
std::optional<BinnedPlan> plan_binned_kernel_sums(const KernelSumReference& reference,
                                                  const RegularGrid& grid,
                                                  double relative_tolerance, double cell_budget);

/// How many grid points the FFT's values could not answer within the tolerance: those answered
/// by the same convolutions summed directly, and those recomputed by the exact path.
struct BinnedFallbacks {
  Index direct = 0;
  Index exact = 0;
};

/// log Σ_i ŵ_i exp(−½‖g_j − p̃_i‖²) at every grid point, within relative_tolerance; the grid
/// points where the FFT's value cannot guarantee it (its rounding swamps small sums) take the
/// convolutions summed directly over the kernel's reach, when that costs less than the exact
/// sums and its bound holds, and the exact path otherwise. `fallbacks` (if not null) receives
/// their numbers.
Vector binned_log_kernel_sums(const KernelSumReference& reference, const RegularGrid& grid,
                              const MatrixView& centred_queries, const BinnedPlan& plan,
                              double relative_tolerance, int threads, BinnedFallbacks* fallbacks);

}  // namespace cdens

#pragma once
// The fast Gauss transform path of the kernel-sum engine, for scattered queries in d ≤ 3
// (Greengard & Strain 1991, "The fast Gauss transform", SIAM J. Sci. Stat. Comput. 12(1)): the
// space is cut into boxes of side L; every point within the cutoff of a box of queries adds its
// Taylor series about the box's centre c (their Taylor expansion about a target box, in units of
// the kernel width; it is the generating function of the Hermite polynomials),
//
//   e^{−(q−p)²/2} = Σ_{n≥0} He_n(p − c) e^{−(p−c)²/2} (q − c)^n / n!      per dimension,
//
// truncated to the orders α_k < p, and every query of the box evaluates the box's polynomial.
// Departing from Greengard and Strain, who bound the error of the whole sum against Σ w_i in
// advance, each box carries a computed bound of its own (truncation, cutoff, rounding), and a
// query keeps the transform's value only when that bound is within the engine's relative
// tolerance of its sum; the others are returned for the tree or exact path (see
// docs/methods/kernel_sums.md, "Fast Gauss transform").

#include <optional>
#include <vector>

#include "kernel_sums/cell_grid.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens {

/// The boxes, the order and the cutoffs chosen for a set of queries, and the work they cost.
struct GaussTransformPlan {
  CellGrid grid;    ///< the points sorted into the boxes' cells
  Index order = 0;  ///< p: the series keeps the orders 0 … p − 1 per dimension
  /// The boxes this path answers and their queries: those of box b are
  /// query_order[box_first[b] … box_first[b+1]).
  std::vector<Index> query_order;
  std::vector<Index> box_first;
  std::vector<Index> box_cell;     ///< the grid cell of box b
  std::vector<double> box_cutoff;  ///< g_b: points at least this far from box b are left out
  std::vector<char> box_direct;    ///< box b sums its near points term by term, not by series
  std::vector<Index> unplaced;     ///< queries outside the grid or without a finite cutoff
  double cost = 0.0;               ///< estimated nanoseconds: series, direct sums, unplaced queries
  double tree_pairs = 0.0;  ///< estimated query–point pairs a dual tree of blocks would sum
};

/// Nanoseconds per unit of work, for the plan's choices (the engine's cost model).
struct GaussTransformCosts {
  double exact_pair = 1.3;   ///< one kernel value summed exactly by GEMM (exact path, tree)
  double row = 30.0;         ///< gathering the points of one row of cells near a box
  double gather = 1.0;       ///< copying one near point into a box's buffer
  double exponential = 1.5;  ///< one vectorised exp, per point, box and dimension
  double recurrence = 0.6;   ///< one step of the Hermite recurrence
  double coefficient = 0.3;  ///< one multiply-add into a box's coefficients or a polynomial
};

/// The plan for the (centred) queries, or nothing when d > 3, the tolerance is zero, or no box
/// side gives a grid within budget and an order p ≤ 40. With `by_cost`, a box takes its series or
/// the direct sum of its near points, whichever costs less; otherwise every box takes its series.
std::optional<GaussTransformPlan> plan_gauss_transform(const KernelSumReference& reference,
                                                       const MatrixView& centred_queries,
                                                       double relative_tolerance,
                                                       const GaussTransformCosts& costs,
                                                       bool by_cost);

/// The path's value Ŝ_j and its bound B_j (|Ŝ_j − S_j| ≤ B_j) at every query of a box it answers,
/// NaN at the others: what the tests check the bound against.
struct GaussTransformValues {
  Vector sums;
  Vector bounds;
};

/// log Σ_i ŵ_i e^{−½‖q̃_j − p̃_i‖²} for the queries of the planned boxes whose bound holds:
/// |Ŝ_j − S_j| ≤ B_j and B_j ≤ relative_tolerance (Ŝ_j − B_j), so Ŝ_j is within the
/// relative tolerance of S_j. The other queries (unplaced, or whose bound fails) are appended to
/// `recompute` and their entries left undefined. One task per box: the result does not depend
/// on `threads`. `values` (if not null) receives Ŝ and B.
Vector gauss_transform_log_kernel_sums(const GaussTransformPlan& plan,
                                       const MatrixView& centred_queries, double relative_tolerance,
                                       int threads, std::vector<Index>* recompute,
                                       GaussTransformValues* values = nullptr);

}  // namespace cdens

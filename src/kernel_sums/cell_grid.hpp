#pragma once
// The points of the kernel-sum engine sorted into the cells of a regular grid (d ≤ 3), for the
// fast Gauss transform path: the points of a row of cells are contiguous, and prefix sums give the
// weight and the number of points in any box of cells by 2^d look-ups.

#include <optional>
#include <vector>

#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens {

struct CellGrid {
  double side = 0.0;           ///< L: the side of every cell, in kernel widths
  std::vector<double> start;   ///< the lower corner of cell 0, per dimension
  std::vector<Index> counts;   ///< cells per dimension
  std::vector<Index> strides;  ///< cell index = Σ_k c_k strides_k (dimension 0 fastest)
  std::vector<Index> first;    ///< the points of cell c are columns first[c] … first[c+1] − 1
  Matrix points;               ///< the points, sorted by cell
  Vector weights;              ///< their weights ŵ_i, in the same order
  std::vector<double> weight_prefix;  ///< Σ of the weights of cells ≤ c, on (counts + 1) nodes
  std::vector<double> count_prefix;   ///< the same for the number of points

  Index dimension() const { return static_cast<Index>(counts.size()); }
  Index cells() const { return static_cast<Index>(first.size()) - 1; }
  /// The cell holding x, or −1 when x lies outside the grid.
  Index cell_of(const double* x) const;
  /// Cell coordinates of cell index `cell`.
  std::vector<Index> coordinates(Index cell) const;
  /// Σ ŵ_i and the number of points over cells with low_k ≤ c_k ≤ high_k (clamped to the grid).
  double weight_in(const std::vector<Index>& low, const std::vector<Index>& high) const;
  double count_in(const std::vector<Index>& low, const std::vector<Index>& high) const;
};

/// The grid of cells of side `side` covering the points of `reference` and `margin` kernel widths
/// beyond them on every side, or nothing when it would have more than `cell_budget` cells (points
/// spread over too many widths) or d > 3.
std::optional<CellGrid> make_cell_grid(const KernelSumReference& reference, double side,
                                       double margin, double cell_budget);

}  // namespace cdens

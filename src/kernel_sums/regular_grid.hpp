#pragma once
// Recognising queries that form a regular grid (the binned path of the kernel-sum engine needs
// one): the columns are the points a + (i_0 Δ_0, …, i_{d−1} Δ_{d−1}), i_k = 0 … G_k − 1, the first
// dimension varying fastest — the order of `cdens grid` and of numpy's meshgrid
// flattened in Fortran order.

#include <optional>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

struct RegularGrid {
  Vector start;                  ///< a: the first point
  Vector spacing;                ///< Δ_k > 0
  std::vector<Index> counts;     ///< G_k ≥ 2
  double largest_deviation = 0;  ///< max over points and k of |q_k − (a_k + i_k Δ_k)|
};

/// The grid the columns of `queries` form, or nothing. A point may deviate from its node by at
/// most 1e−9 Δ_k (the rounding of a grid computed as start + (stop − start) i / (G − 1), then
/// standardised); the deviation found is reported.
std::optional<RegularGrid> regular_grid_of(const MatrixView& queries);

}  // namespace cdens

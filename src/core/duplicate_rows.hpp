#pragma once
// Identical training rows (every column of the fit equal, inputs and outputs): how fit_method
// finds them and what a merged fit sees instead. A leave-one-out or cross-validated criterion
// that holds a row out while its twin stays in the sample scores the twin's kernel at distance 0
// and so rewards a width of 0 (issue 50); a group of identical rows fitted as one row whose
// weight is their total weight is left out together, with all that weight
// (docs/methods/duplicates.md).

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// The rows of a table grouped by equality of all their values.
struct RowGroups {
  /// The first row of each group, in the order of the rows (so the groups' order is that of their
  /// first occurrences, and a table without duplicates keeps its order).
  std::vector<Index> first_rows;
  /// The group of every row: its position in first_rows.
  std::vector<Index> group_of;

  Index rows() const { return static_cast<Index>(group_of.size()); }
  Index groups() const { return static_cast<Index>(first_rows.size()); }
  /// The rows that repeat an earlier row: rows() − groups().
  Index repeated_rows() const { return rows() - groups(); }
};

/// The rows of (x, y) (x d_x × n, y d_y × n with d_y ≥ 0 — a density's samples have no y)
/// grouped by equality of every value of x and y: rows equal in x but not in y are not a group.
/// Values compare as numbers (−0 equals 0; NaN, which the fits refuse after, equals NaN).
/// O(n log n) comparisons.
RowGroups group_identical_rows(const MatrixView& x, const MatrixView& y);

/// The weight of each group: the sum of its rows' `weights` (empty: every row weighs 1).
Vector group_weights(const RowGroups& groups, const Vector& weights);

/// The size of each group divided by the greatest common divisor of the sizes: the table written
/// k times has the table's counts, and a table whose rows all repeat equally often counts of 1.
/// As weights they are the group's size up to a common factor, which changes no weighted fit.
std::vector<Index> reduced_counts(const RowGroups& groups);

/// The first counts[g] rows of each group g, in the order of the rows: with reduced_counts, the
/// table without the factor all its groups' sizes share — the table itself where they share none,
/// the first copy of a table written k times one copy after the other.
std::vector<Index> first_copies(const RowGroups& groups, const std::vector<Index>& counts);

}  // namespace cdens

#pragma once
// Columns a user declares discrete for KCDE (docs/methods/kcde.md, "Mixed data"): the kernels of
// the columns of (x, y), the warning for a column that looks discrete but was not declared, and
// the standardisation that leaves discrete columns in their raw values.

#include <string>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_report.hpp"
#include "conditional/kernel_cde_engine.hpp"

namespace cdens {

/// The kernel of every column of the stacked (x, y), inputs first: unordered for the positions
/// in `unordered`, ordered for those in `ordered`, with the distinct values of the column as
/// levels, continuous otherwise. InvalidArgument naming the column (`names`, d_x + d_y of them,
/// or "x0", "y1", … when empty) for a position out of range, a column declared twice, a discrete
/// column with one level or an ordered one with a non-integer value. On several ranks of
/// `communicator` (x and y this rank's pairs) the levels are the values of every rank's, and the
/// call is collective.
ColumnKernels declared_column_kernels(const MatrixView& x, const MatrixView& y,
                                      const std::vector<Index>& unordered,
                                      const std::vector<Index>& ordered,
                                      const std::vector<std::string>& names,
                                      const Communicator& communicator);

/// Whether a column looks discrete: at most 10 distinct values, or integers only with at most
/// 20 distinct values.
bool looks_discrete(const VectorView& values);

/// Integers only, at least two and at most as many distinct values as looks_discrete allows
/// integers (20): a score or a count that auto models by a mass function by default.
bool has_few_integer_levels(const VectorView& values);
/// The same of every rank's values (this rank's share); on one process has_few_integer_levels.
/// A collective call.
bool has_few_integer_levels(const VectorView& values, const Communicator& communicator);

/// A warning for every continuous column of `kernels` that looks discrete, naming it as
/// declared_column_kernels does and saying how to declare it. On several ranks of
/// `communicator` a column looks discrete by the values of every rank's pairs (a collective
/// call).
std::vector<std::string> undeclared_discrete_warnings(const MatrixView& x, const MatrixView& y,
                                                      const ColumnKernels& kernels,
                                                      const std::vector<std::string>& names,
                                                      const Communicator& communicator);

/// A warning for every discrete column of `kernels` with more levels than half the `n` rows:
/// most of its levels are then seen once or never again, so that a new value of such an output
/// scores −∞ (docs/methods/kcde.md, "Mixed data": a continuous column declared discrete).
std::vector<std::string> many_levels_warnings(const ColumnKernels& kernels, Index n,
                                              Index input_dim,
                                              const std::vector<std::string>& names = {});

/// The pairs standardised as standardize_pairs does (as standardize_shard does on several ranks
/// of context.communicator), except that discrete columns keep their raw values (mean 0, scale
/// 1), so that their levels stay exact.
StandardizedPairs standardize_continuous_columns(const MatrixView& x, const MatrixView& y,
                                                 const ColumnKernels& kernels,
                                                 const FitContext& context);

/// "x0", "y1", …: dimension d of the stacked (x, y) with d_x inputs.
std::string dimension_name(Index d, Index input_dim);

/// The name of column d of (x, y) in messages: names[d] (the CSV column's name), or
/// dimension_name where `names` has none.
std::string column_name(Index d, Index input_dim, const std::vector<std::string>& names);

}  // namespace cdens

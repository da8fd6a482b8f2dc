#pragma once
// What a conditional model saw of its data, beyond its parameters (docs/design.md, "Beyond the
// data"): the range of its inputs, by which a query is told that it extrapolates, and the bounds
// of its output, to which its components are truncated so that every answer stays inside them.

#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The smallest and largest value of every input over the rows a model was fitted on, in the
/// user's units. A query row lies outside it where an input falls below its lower end or above
/// its upper end by more than kExtrapolationMargin times the input's range (an input of zero
/// range, one a fit ignored as constant, is never the reason).
struct InputRange {
  Vector lower;
  Vector upper;

  /// The range of the columns of x (d_x × n) whose `keep` entry is true (every column when `keep`
  /// is empty), over every rank of `communicator` (a collective call: each rank passes its own
  /// rows). A rank without rows contributes nothing.
  static InputRange of(const MatrixView& x, const std::vector<bool>& keep = {},
                       const Communicator& communicator = local_communicator());

  /// InvalidArgument unless lower and upper have one finite entry per input, lower ≤ upper.
  void require_valid(Index input_dim) const;

  nlohmann::json to_json() const;
  /// ModelFormatError for a member that is missing or not a list of numbers.
  static InputRange from_json(const nlohmann::json& document);
};

/// The share of an input's training range by which a query may pass beyond its ends before the
/// row counts as outside the inputs the model was fitted on: a tenth. Rows drawn from the
/// training distribution rarely pass it (a normal input of 1,000 training rows: 2 in 10⁴ per
/// input, of 100 rows 6 in 10³; docs/design.md, "Beyond the data"), and a trend has visibly left
/// its data by then.
inline constexpr double kExtrapolationMargin = 0.1;

/// The query rows whose answers extrapolate (ConditionalMixture::extrapolated_rows).
struct ExtrapolatedRows {
  /// Every row flagged, by its index among the query's columns, increasing.
  std::vector<Index> rows;
  /// For every input, how many rows pass beyond its range by more than the margin (empty where
  /// the model has no input range).
  std::vector<Index> beyond_range;
  /// How many rows no component weighs (every gate weight exactly zero: an ε-ball holding no
  /// training input), which the gate's marginal mixture answers.
  Index answered_by_marginal = 0;

  bool empty() const { return rows.empty(); }
};

/// The warning the front ends give for `rows` of a query of `query_rows` rows, with the inputs
/// named by `x_names` (x0, x1, … where empty): "3 of 1000 query rows lie outside the inputs the
/// model was fitted on (…); their answers extrapolate". Empty when no row is flagged.
std::string extrapolation_warning(const ExtrapolatedRows& rows, Index query_rows,
                                  const std::vector<std::string>& x_names = {});

/// The support of a one-dimensional continuous y: every component of the model is truncated to
/// [y_lower, y_upper] and renormalised, so that its density, CDF, quantiles, draws and moments
/// stay inside (docs/design.md, "Output bounds"). The field names are the options' (y_lower,
/// y_upper, which every conditional method takes); ±∞ is no bound.
struct OutputBounds {
  double y_lower = -std::numeric_limits<double>::infinity();
  double y_upper = std::numeric_limits<double>::infinity();

  /// Whether either bound is finite.
  bool bounded() const {
    return y_lower > -std::numeric_limits<double>::infinity() ||
           y_upper < std::numeric_limits<double>::infinity();
  }
  /// Whether y lies in [y_lower, y_upper].
  bool contains(double y) const { return y >= y_lower && y <= y_upper; }
  /// InvalidArgument unless y_lower < y_upper, neither is NaN, and a finite one is not ±∞'s
  /// opposite (y_lower = +∞ or y_upper = −∞).
  void require_valid() const;

  /// {"lower": …, "upper": …}, each only where finite.
  nlohmann::json to_json() const;
  /// ModelFormatError for a member that is not a finite number.
  static OutputBounds from_json(const nlohmann::json& document);
};

}  // namespace cdens

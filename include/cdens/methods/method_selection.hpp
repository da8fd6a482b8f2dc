#pragma once
// `--method auto` (Python's AutoCDE): the conditional estimator of a list of candidates with the
// smallest K-fold cross-validated NLL, within a time budget, refitted on every pair. Each
// candidate is a method of the registry with option settings of its own; all are scored on the
// same folds, so their differences come with paired standard errors (the report's table).

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace cdens {

/// How auto models an undeclared y of few integer levels.
enum class IntegerOutput { pmf, density };
/// "pmf" or "density".
std::string to_string(IntegerOutput choice);

struct MethodSelectionOptions {
  /// Comma-separated candidates, cheapest first: a conditional method's name, optionally with
  /// option settings after colons ("kcde:trend=linear:restarts=4"; an option by its name or its
  /// Python name). Seeds and threads come from this fit's own.
  std::string candidates = "linear,lscde,kcde:trend=linear,kcde,kcde:trend=gp";
  /// Discrete columns (unordered, ordered) by position among the inputs, then the outputs,
  /// passed to every candidate that takes such declarations (KCDE). With a discrete output the
  /// scores are probability masses, so a candidate that models densities only is not run.
  std::vector<Index> discrete = {};
  std::vector<Index> ordered = {};
  /// What an undeclared one-dimensional y of few integer levels (at most 20, as wine's quality
  /// score) gets: a probability mass function over its levels (`pmf`, the default: y is then
  /// declared ordered), or a density (`density`), which can put spikes on the levels and score
  /// without bound.
  IntegerOutput integer_output = IntegerOutput::pmf;
  int folds = 5;
  /// Seconds. Candidates run in the order given; once one has been scored, a candidate is not
  /// started when the budget is spent, and is stopped after its first fold when its projected
  /// time would exceed what is left. The final refit of the chosen one is not counted.
  double time_budget = 300.0;
  /// Draws the folds; also the seed of every candidate's own random choices.
  std::uint64_t seed = 0;
  int threads = 0;
};

/// Scores every candidate on the same K folds of the pairs (x d_x × n, y d_y × n), refits the
/// one with the smallest mean held-out NLL on all pairs and returns its model, whose report
/// (that of the chosen method's own fit) gains the table (FitReport::method_selection).
/// InvalidArgument for an unknown method or option in the candidates, or one that is `auto`;
/// DataError naming each candidate's error when none could be scored.
ConditionalModel fit_selected_method(const MatrixView& x, const MatrixView& y,
                                     const MethodSelectionOptions& options,
                                     const FitContext& context = {});

}  // namespace cdens

#pragma once
// Where a fit runs and whom it tells: shared by every estimator's fit function.

#include <string>
#include <utility>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/progress.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// Where a fit runs and whom it tells.
struct FitContext {
  const Communicator& communicator = local_communicator();
  Progress& progress = silent_progress();
  /// The names of the columns of (x, y), inputs first, for messages about a column (the CSV
  /// header on the command line); empty: "x0", …, "y0", ….
  std::vector<std::string> column_names = {};
  /// The rows' sample weights (sample_weights.hpp), all positive; empty: every row weighs 1.
  /// fit_method (registry.hpp) validates them, drops the rows of weight 0 and passes them only to
  /// the methods that support them (MethodEntry::sample_weights); a fit function of another
  /// method called directly ignores them.
  Vector sample_weights = {};
  /// On several ranks, whether a model that keeps its training pairs (KCDE) may keep each rank's
  /// own instead of gathering every rank's on each (FitReport::rows_of_this_rank says which it
  /// did): for a caller that writes the model with save_conditional_model_of_ranks, so that no
  /// rank holds every pair (docs/distributed.md, "Memory"). Ignored on one process.
  bool rows_stay_on_ranks = false;
  /// OpenMP threads of this process, 0: OpenMP's default (usually one per core). It says where
  /// the fit runs, not what it fits: every method's result is the same for any count (the
  /// conformance suite checks it). resolve_threads refuses a negative count or one above 8 per
  /// processor. The registry sets it from the methods' shared `threads` option (`--threads`,
  /// Python's n_jobs).
  int threads = 0;

  /// column_names split into the names of x's rows and of y's, for the standardisers that
  /// refuse a constant column; two empty lists unless it names exactly x_rows + y_rows columns.
  std::pair<std::vector<std::string>, std::vector<std::string>> pair_names(Index x_rows,
                                                                           Index y_rows) const;
  /// This context reporting to `part_progress`: for a fit inside a fit on the same columns (a
  /// candidate of auto, one J of PRESS's AIC choice), its stages named as its part of the whole
  /// (PrefixedProgress) or not shown (silent_progress()).
  FitContext reporting_to(Progress& part_progress) const {
    return {communicator, part_progress, column_names, sample_weights, rows_stay_on_ranks, threads};
  }
  /// This context without column names and reporting to `part_progress`: for a fit inside a fit
  /// on columns derived from the named ones (LSCE's projections z = Wx, a subset of the inputs),
  /// which the names would mislabel, whose stages are named as its part of the whole
  /// (PrefixedProgress) or not shown (silent_progress(): fits that run side by side).
  FitContext for_derived_columns(Progress& part_progress) const {
    return {communicator, part_progress, {}, sample_weights, rows_stay_on_ranks, threads};
  }
  /// This context running on `count` threads: for a fit inside a fit that runs its inner fits
  /// side by side (one thread each) or on the threads it was given.
  FitContext with_threads(int count) const {
    return {communicator, progress, column_names, sample_weights, rows_stay_on_ranks, count};
  }
  /// Whether the rows carry sample weights.
  bool weighted() const { return sample_weights.size() > 0; }
};

}  // namespace cdens

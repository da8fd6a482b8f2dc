#pragma once
// Where a fit runs and whom it tells: shared by every estimator's fit function.

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

// Progress of long fits and evaluations (cross-validation grids, restarts, searches, scored
// pairs). Estimators report stages of counted steps; the CLI shows them on a terminal, Python
// with verbose=1 on sys.stderr, everything else stays silent.

class Progress {
 public:
  virtual ~Progress() = default;
  /// Starts a stage of `total` steps called `label` (0: a count of steps not known in advance).
  virtual void begin(std::string_view label, Index total) = 0;
  /// Marks `steps` more steps done. Safe to call from several threads at once.
  virtual void advance(Index steps = 1) = 0;
  /// Ends the current stage.
  virtual void end() = 0;
};

/// Reports nothing.
Progress& silent_progress();

/// Passes every stage on to `inner` with its label prefixed ("model 2 of 4, kcde.json: " before
/// "highest-density regions"): the stages of one part of a longer run.
class PrefixedProgress final : public Progress {
 public:
  PrefixedProgress(Progress& inner, std::string prefix)
      : inner_(inner), prefix_(std::move(prefix)) {}
  void begin(std::string_view label, Index total) override;
  void advance(Index steps = 1) override { inner_.advance(steps); }
  void end() override { inner_.end(); }

 private:
  Progress& inner_;
  std::string prefix_;
};

/// The status line of a stage: "label: done/total (p%), rate, m:ss left" — the rate in steps per
/// second ("2.5/s"), or in seconds per step ("4.0 s/step") when a step takes longer than a second;
/// with an unknown total (0) "label: done, rate, m:ss elapsed". Before the first step is done
/// there is no rate to tell: "label: 0/total".
std::string progress_line(std::string_view label, Index done, Index total, double elapsed_seconds);

/// A duration as m:ss, or h:mm:ss from an hour on (seconds rounded; a negative one as 0:00).
std::string format_duration(double seconds);

/// Rewrites one status line (progress_line) with carriage returns, at most ten times a second.
/// At the end of a stage the line is erased (Finished::erase: a terminal whose next output is a
/// report or an error message) or completed with the stage's time and kept (Finished::keep:
/// "label: 40/40 in 0:03", a record in a notebook's output).
class TerminalProgress final : public Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Writer = std::function<void(std::string_view)>;
  enum class Finished { erase, keep };

  /// Writes to `stream` (a terminal's standard error), flushing after every write.
  explicit TerminalProgress(std::FILE* stream, Finished finished = Finished::erase);
  /// Writes through `write`; `now` tells the time (a fake clock in tests).
  TerminalProgress(
      Writer write, Finished finished, Clock now = [] { return std::chrono::steady_clock::now(); });
  /// Ends a stage that is still open (a fit that failed inside it), so that no half-written line
  /// stays before the error message.
  ~TerminalProgress() override;

  void begin(std::string_view label, Index total) override;
  void advance(Index steps = 1) override;
  void end() override;

 private:
  void draw(const std::string& line);
  void finish();

  Writer write_;
  Finished finished_;
  Clock now_;
  std::mutex mutex_;
  bool open_ = false;
  std::string label_;
  Index total_ = 0;
  Index done_ = 0;
  std::chrono::steady_clock::time_point started_{};
  std::chrono::steady_clock::time_point last_draw_{};
  std::size_t drawn_width_ = 0;  // characters of the line on screen, to overwrite
};

/// What fit_method (registry.hpp) does with training rows equal in every column of the fit (x
/// and y): `merge` fits each group of them as one row whose sample weight is the sum of theirs, so
/// that a leave-one-out or cross-validated criterion leaves it out with all its weight; `keep` fits
/// them as separate rows, as the papers' estimators are written, where a held-out row's twin
/// stays in the sample and the criterion rewards a kernel width of 0 (docs/methods/duplicates.md).
enum class Duplicates { merge, keep };

/// "merge" or "keep".
std::string to_string(Duplicates duplicates);

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
  /// What fit_method does with identical training rows (Duplicates). It says what is fitted, as
  /// an option does, but belongs to no method: the registry sets it from the shared `duplicates`
  /// option (`--duplicates`, Python's duplicates) that every method's options end with.
  Duplicates duplicates = Duplicates::merge;
  /// −1 until fit_method has looked for identical rows; then the number of rows it merged into an
  /// earlier identical one (0 where there were none, or it kept them). A fit inside the fit on
  /// its rows (a candidate of auto, a fold of them) is not searched again.
  Index merged_rows = -1;
  /// Where sample_weights count the copies of each row that fit_method merged (no weights were
  /// given), the weight of one copy (1 for the counts, 1/largest once they are relative to the
  /// largest, as every weighted fit sees them); 0 otherwise. A fit inside this one that takes no
  /// weights may then be given each row with its copies (auto's candidates,
  /// docs/methods/duplicates.md).
  double weight_of_a_copy = 0.0;
  /// The search ends (FitReport::search_ends) of an earlier fit of the same method and options
  /// on rows that overlap these (auto's first fold, for its later folds): each search they name
  /// starts there alone, without the random starts and screening of a search from scratch.
  /// nullptr: every search from scratch. Not owned.
  const std::map<std::string, Vector>* warm_start = nullptr;
  /// Whether the fit is one of a cross-validation's (auto's folds), whose model only scores the
  /// held-out rows and whose report is dropped: a method may then leave out what serves its
  /// report alone (KCDE's comparison with the linear-Gaussian model).
  bool held_out_scoring = false;

  /// column_names split into the names of x's rows and of y's, for the standardisers that
  /// refuse a constant column; two empty lists unless it names exactly x_rows + y_rows columns.
  std::pair<std::vector<std::string>, std::vector<std::string>> pair_names(Index x_rows,
                                                                           Index y_rows) const;
  /// This context reporting to `part_progress`: for a fit inside a fit on the same columns (a
  /// candidate of auto, one J of PRESS's AIC choice), its stages named as its part of the whole
  /// (PrefixedProgress) or not shown (silent_progress()).
  FitContext reporting_to(Progress& part_progress) const {
    return {communicator,       part_progress, column_names,    sample_weights,
            rows_stay_on_ranks, threads,       duplicates,      merged_rows,
            weight_of_a_copy,   warm_start,    held_out_scoring};
  }
  /// This context without column names and reporting to `part_progress`: for a fit inside a fit
  /// on columns derived from the named ones (LSCE's projections z = Wx, a subset of the inputs),
  /// which the names would mislabel, whose stages are named as its part of the whole
  /// (PrefixedProgress) or not shown (silent_progress(): fits that run side by side); its
  /// searches start from scratch (a warm start holds the named columns' parameters).
  FitContext for_derived_columns(Progress& part_progress) const {
    return {communicator,    part_progress, {},          sample_weights,   rows_stay_on_ranks,
            threads,         duplicates,    merged_rows, weight_of_a_copy, nullptr,
            held_out_scoring};
  }
  /// This context running on `count` threads: for a fit inside a fit that runs its inner fits
  /// side by side (one thread each) or on the threads it was given.
  FitContext with_threads(int count) const {
    return {communicator, progress,    column_names,     sample_weights, rows_stay_on_ranks, count,
            duplicates,   merged_rows, weight_of_a_copy, warm_start,     held_out_scoring};
  }
  /// Whether the rows carry sample weights.
  bool weighted() const { return sample_weights.size() > 0; }
};

}  // namespace cdens

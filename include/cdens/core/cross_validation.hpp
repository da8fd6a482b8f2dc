#pragma once
// K-fold splitting and the table of cross-validation results every estimator reports.

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The fold of each of n samples in K-fold cross-validation: the samples 0 … n − 1 in random
/// order, cut into K contiguous runs whose sizes differ by at most one (LSCDE paper §2.5: "K
/// disjoint subsets of approximately the same size"); the positions n·k/K … n·(k+1)/K − 1 make
/// fold k. Throws InvalidArgument unless 2 ≤ folds ≤ n. KFold's folds, in 4 bytes per sample
/// (and 4 more while drawing) instead of KFold's lists of 8-byte indices.
std::vector<std::int32_t> draw_fold_labels(Index n, int folds, Rng& rng);

/// The folds of draw_fold_labels as the list of each fold's samples.
class KFold {
 public:
  /// Throws InvalidArgument unless 2 ≤ folds ≤ n.
  KFold(Index n, int folds, Rng& rng);

  int n_folds() const { return static_cast<int>(test_.size()); }
  Index n_samples() const { return n_; }
  /// Held-out samples of fold k, increasing.
  const std::vector<Index>& test(int k) const { return test_[static_cast<std::size_t>(k)]; }
  /// The other samples, increasing.
  std::vector<Index> train(int k) const;
  /// The fold of every sample: entry i is the k with i in test(k).
  std::vector<int> fold_of() const;

 private:
  Index n_;
  std::vector<std::vector<Index>> test_;
};

/// Cross-validated loss of every candidate of a hyper-parameter grid.
struct CvTable {
  std::vector<std::string> parameter_names;  ///< e.g. {"sigma", "lambda"}
  Matrix candidates;                         ///< one row per candidate, one column per name
  Vector mean_loss;                          ///< mean over folds of the held-out loss
  Vector standard_error;                     ///< standard deviation over folds / √K
  /// "kl" (negative log-likelihood of y given x) or "sq"; estimators that select a density of
  /// their own say which, e.g. "joint_nll" (−log p̂(x, y)) or "marginal_nll" (−log p̂(x)).
  std::string loss;
  Index best = -1;  ///< row with the smallest mean loss

  nlohmann::json to_json() const;
  static CvTable from_json(const nlohmann::json& document);
};

/// Row of the smallest finite mean loss; ties go to the earliest row.
Index best_candidate(const Vector& mean_loss);

/// The table of a grid from each candidate's mean held-out loss on each fold (`fold_loss`,
/// candidates × K): mean over folds, standard error = standard deviation over folds / √K, and
/// the best row. Leave-one-out is the case of n folds of one sample each.
CvTable make_cv_table(std::vector<std::string> parameter_names, Matrix candidates,
                      const MatrixView& fold_loss, std::string loss);

/// The one-standard-error rule (Hastie, Tibshirani & Friedman 2009, §7.10): among the rows
/// whose other parameters equal the best row's, the one with the simplest value of column
/// `parameter` (the largest when `simplest_is_largest`, else the smallest) whose mean loss is at
/// most the best row's mean loss plus its standard error — the simplest model the
/// cross-validation cannot tell from the best. The best row itself when no simpler one
/// qualifies; −1 when the table has no best row.
Index one_standard_error_row(const CvTable& table, Index parameter, bool simplest_is_largest);

/// The candidates of a two-parameter grid, one row (a, b) per pair, `first` varying slowest:
/// row i · |second| + j holds (first[i], second[j]).
Matrix product_grid(const std::vector<double>& first, const std::vector<double>& second);

/// Whether `value` is the smallest or the largest of a grid of more than one candidate: a
/// choice there suggests that the grid should be wider.
bool at_grid_edge(const std::vector<double>& grid, double value);

/// "the chosen <name> lies at the edge of its grid" for every parameter of the table's best row
/// that is at_grid_edge of its grid (`grids[p]` belongs to parameter_names[p]).
std::vector<std::string> grid_edge_warnings(const CvTable& table,
                                            const std::vector<std::vector<double>>& grids);

/// Losses of `candidates` candidates on held-out samples of fold `fold`: a candidates × |samples|
/// matrix for the samples listed (a run of folds.test(fold)), each scored by the candidate fitted
/// on the other folds.
using HeldOutLosses = std::function<Matrix(int fold, const std::vector<Index>& samples)>;

/// Every sample's held-out loss under K-fold cross-validation: column i of the result
/// (candidates × n) is the loss of sample i under the fit without its fold. The held-out samples
/// are cut into runs of at most 256 whatever the thread count; runs are scored in parallel on
/// `threads` threads, each writing only its own columns, so the result does not depend on
/// `threads`. Reports one step per run to `progress` under `label`.
Matrix k_fold_sample_losses(const KFold& folds, Index candidates, int threads,
                            const HeldOutLosses& losses, Progress& progress,
                            const std::string& label);

/// Each fold's mean of the per-sample losses (candidates × K), the input of make_cv_table.
Matrix fold_mean_losses(const MatrixView& sample_losses, const KFold& folds);

/// `count` values spaced evenly in log between `low` and `high` (both included).
std::vector<double> log_spaced(double low, double high, int count);

}  // namespace cdens

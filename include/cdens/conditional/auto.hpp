#pragma once
// `--method auto` (Python's AutoCDE): the linear pool of a list of candidate conditional
// estimators with the weights of the best held-out log score (stacking), or the candidate of the
// smallest held-out NLL, within a time budget. Each candidate is a method of the registry with
// option settings of its own; each is scored by its fit's own leave-one-out log-densities or by
// K-fold refits on folds shared by all, on the same pairs, so their differences come with paired
// standard errors (the report's table).

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

/// What auto returns: the linear pool of the candidates with stacking weights, or the one of the
/// smallest cross-validated NLL.
enum class CandidateCombination { stacking, selection };
/// "stacking" or "selection".
std::string to_string(CandidateCombination combination);

/// How auto scores its candidates: each by its own leave-one-out log-densities of a fit on every
/// pair where its fit computes them, K-fold refits otherwise; every candidate by K-fold refits;
/// or the second up to 1,000 pairs and the first beyond.
enum class CandidateValidation { automatic, leave_one_out, kfold };
/// "auto", "loo" or "kfold".
std::string to_string(CandidateValidation validation);

struct AutoOptions {
  /// Comma-separated candidates, cheapest first: a conditional method's name, optionally with
  /// option settings after colons ("kcde:trend=linear:n_restarts=4"; an option by its name or its
  /// Python name). Seeds come from this fit's own, threads from its context.
  std::string candidates =
      "linear,lscde,kcde:trend=linear,kcde,kcde:trend=gp,kcde:trend=gp:y_transform=yeo_johnson";
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
  /// The atom of a one-dimensional continuous y ("auto", "none" or a number's text, as KCDE's):
  /// decided once on every pair and passed to the candidates that take it (KCDE without a trend
  /// or transform), so that every fold models the same one. Where y has an atom the scores are
  /// against the mixed measure (a probability at the atom, a density elsewhere), and a candidate
  /// that models densities only is not run; "none" scores the candidates as densities.
  std::string atom = "auto";
  /// `stacking`: the model is the linear pool Σ_c a_c p_c of the candidates refitted on every
  /// pair, the weights maximising the pool's cross-validated log score (Yao et al. 2018), those
  /// below 0.01 dropped — one candidate where one dominates. `selection`: the candidate of the
  /// smallest cross-validated NLL.
  CandidateCombination combine = CandidateCombination::stacking;
  /// `leave_one_out`: each candidate is fitted once on every pair and scored by its fit's own
  /// leave-one-out log-densities (KCDE's criterion terms at its chosen bandwidths, the linear
  /// model's closed form; FitReport::held_out), or by K-fold refits where its fit has none
  /// (LSCDE); the pool's members are those fits. `kfold`: every candidate is refitted on K − 1
  /// folds, its whole selection included, and the members refitted on every pair. `automatic`:
  /// `kfold` up to 1,000 pairs, where the refits take seconds and expose a fit that is fragile
  /// at small n, `leave_one_out` beyond, where they would take minutes to hours.
  CandidateValidation validation = CandidateValidation::automatic;
  /// Folds of the K-fold scores.
  int folds = 5;
  /// Seconds. Candidates run in the order given; once one has been scored, a candidate is not
  /// started when the budget is spent, and is stopped after its first fold when its projected
  /// time would exceed what is left. The final refit of the chosen one is not counted.
  double time_budget = 300.0;
  /// Draws the folds; also the seed of every candidate's own random choices.
  std::uint64_t seed = 0;
};

/// Scores every candidate on the same pairs (x d_x × n, y d_y × n) as `validation` says, fits the
/// ones of positive stacking weight (or the one of the smallest mean held-out NLL) on all pairs
/// (with `loo`, the fits made for scoring) and returns their pool, whose report gains the table
/// (FitReport::method_selection): that of the candidate's own fit for one, of method "auto" for a
/// pool of several. InvalidArgument for an unknown method or option in the candidates, or one that
/// is `auto`; DataError naming each candidate's error when none could be scored.
ConditionalModel fit_auto(const MatrixView& x, const MatrixView& y, const AutoOptions& options,
                          const FitContext& context = {});

}  // namespace cdens

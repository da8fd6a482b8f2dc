#pragma once
// Two or more models scored on the same pairs: for every proper score they share, each model's
// mean, the mean difference of every two models with its paired standard error, and the share of
// pairs on which each wins. Pairing matters: the scores of two models on the same pair are
// strongly correlated, so the standard error of the mean difference, sd(s_b − s_a)/√n, is far
// smaller than what the two means' own standard errors suggest.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/evaluation/evaluation.hpp"

namespace cdens {

/// Model b against model a on one score.
struct PairedDifference {
  std::string score;
  Index first = 0;   ///< a, an index into the models
  Index second = 0;  ///< b
  /// Mean over the pairs of the improvement of b over a — the loss of a minus that of b; for the
  /// log-likelihood, b's minus a's — so that a positive mean favours b on every score; and its
  /// standard error.
  double mean = 0.0;
  double standard_error = 0.0;
  double first_wins = 0.0;   ///< share of pairs on which a scores strictly better
  double second_wins = 0.0;  ///< share on which b does; the rest are ties
};

struct ModelComparison {
  std::vector<std::string> models;
  /// The pairs compared: those that every model scored (a pair that one model left out for a
  /// score that is not finite is left out of the comparison).
  Index n = 0;
  Index pairs_given = 0;
  std::vector<Index> pairs;     ///< the index among the pairs given of every pair compared
  std::vector<Index> excluded;  ///< the pairs given that some model left out, increasing
  /// The proper scores every model has, in the first model's order.
  std::vector<std::string> scores;
  Matrix means;            ///< scores × models
  Matrix standard_errors;  ///< scores × models, sd / √n of each model's values
  /// scores × models: share of pairs on which the model has the best score of all, a tie of t
  /// models giving each 1/t.
  Matrix best_shares;
  /// Every pair of models (a < b) on every score.
  std::vector<PairedDifference> differences;
};

/// Compares evaluations of the same pairs (the same number given) on the pairs that every one
/// scored; `names` label them. InvalidArgument for fewer than two models, names that do not
/// match, evaluations of different data sizes, or an output that is continuous in one model and
/// discrete in another (a log-density and a log-probability are on no common scale); DataError
/// when fewer than two pairs remain.
ModelComparison compare_evaluations(const std::vector<ModelEvaluation>& evaluations,
                                    const std::vector<std::string>& names);

nlohmann::json comparison_to_json(const ModelComparison& comparison);

}  // namespace cdens

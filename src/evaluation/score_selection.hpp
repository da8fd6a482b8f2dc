#pragma once
// Which scores of an evaluation apply to a model's y (a continuous, ordered or unordered output,
// one dimension or several) and which of them EvaluationOptions::scores asks for.

#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/evaluation/evaluation.hpp"

namespace cdens::detail {

/// What EvaluationOptions::scores asks for.
struct ScoreSelection {
  bool log_likelihood = false;
  bool crps = false;
  bool rps = false;
  bool pinball = false;
  bool cde_loss = false;
  bool brier = false;
  bool energy_score = false;
  bool central = false;
  bool hpd = false;
};

/// Every score of evaluation_score_names() that does not apply to the model's y, with why, in
/// that order.
std::vector<InapplicableScore> inapplicable_scores(const ConditionalMixture& model);

/// The scores `names` asks for, or every one that applies when it is empty. InvalidArgument for
/// a name that is unknown, given twice, or does not apply (naming those that do).
ScoreSelection select_scores(const std::vector<std::string>& names,
                             const ConditionalMixture& model);

}  // namespace cdens::detail

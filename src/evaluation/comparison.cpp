#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "evaluation/summary.hpp"

namespace cdens {
namespace {

bool has_proper_score(const ModelEvaluation& evaluation, const std::string& name) {
  return std::any_of(
      evaluation.scores.begin(), evaluation.scores.end(),
      [&](const ScoreColumn& column) { return column.proper && column.name == name; });
}

/// The values oriented so that smaller is better.
Vector as_loss(const ScoreColumn& column) {
  return column.higher_is_better ? Vector(-column.values) : column.values;
}

/// Throws DataError unless a summary of `what` fits in a double.
void require_finite_summary(const detail::MeanAndError& summary, const std::string& what) {
  if (!std::isfinite(summary.mean) || !std::isfinite(summary.standard_error)) {
    throw DataError("the mean or standard error of " + what + " is beyond the range of a double");
  }
}

PairedDifference paired_difference(const ScoreColumn& a, const ScoreColumn& b, Index first,
                                   Index second) {
  const Vector loss_a = as_loss(a);
  const Vector loss_b = as_loss(b);
  // The improvement of b over a: positive where b is better, for a loss as for the
  // log-likelihood.
  const Vector improvement = loss_a - loss_b;
  const detail::MeanAndError summary = detail::mean_and_standard_error(improvement);
  require_finite_summary(summary, "the difference in " + a.name);
  return {a.name,
          first,
          second,
          summary.mean,
          summary.standard_error,
          (loss_a.array() < loss_b.array()).cast<double>().mean(),
          (loss_b.array() < loss_a.array()).cast<double>().mean()};
}

/// The pairs an evaluation scored (all of them for one made without exclusions, by hand).
std::vector<Index> scored_pairs(const ModelEvaluation& evaluation) {
  if (!evaluation.pairs.empty() || evaluation.n == 0) return evaluation.pairs;
  std::vector<Index> all(static_cast<std::size_t>(evaluation.n));
  for (Index j = 0; j < evaluation.n; ++j) all[static_cast<std::size_t>(j)] = j;
  return all;
}

Index pairs_given(const ModelEvaluation& evaluation) {
  return std::max(evaluation.pairs_given,
                  evaluation.n + static_cast<Index>(evaluation.excluded.size()));
}

/// A score column restricted to the pairs compared.
ScoreColumn on_pairs(const ScoreColumn& column, const std::vector<Index>& scored,
                     const std::vector<Index>& compared) {
  if (scored == compared) return column;
  ScoreColumn result = column;
  result.values.resize(static_cast<Index>(compared.size()));
  std::size_t position = 0;
  for (std::size_t i = 0; i < compared.size(); ++i) {
    while (scored[position] != compared[i]) ++position;
    result.values(static_cast<Index>(i)) = column.values(static_cast<Index>(position));
  }
  const detail::MeanAndError summary = detail::mean_and_standard_error(result.values);
  require_finite_summary(summary, column.name);
  result.mean = summary.mean;
  result.standard_error = summary.standard_error;
  return result;
}

/// A matrix as a list of its rows.
nlohmann::json matrix_rows(const Matrix& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Index r = 0; r < matrix.rows(); ++r) {
    const Vector row = matrix.row(r).transpose();
    rows.push_back(std::vector<double>(row.data(), row.data() + row.size()));
  }
  return rows;
}

}  // namespace

void require_comparable_output_kinds(const std::vector<std::vector<std::string>>& output_kinds,
                                     const std::vector<std::string>& names) {
  const auto discrete = [](const std::string& kind) { return kind != "continuous"; };
  const std::vector<std::string>& first = output_kinds.front();
  for (std::size_t m = 1; m < output_kinds.size(); ++m) {
    const std::vector<std::string>& kinds = output_kinds[m];
    if (kinds.size() != first.size()) continue;
    for (std::size_t d = 0; d < kinds.size(); ++d) {
      if (discrete(kinds[d]) == discrete(first[d])) continue;
      throw InvalidArgument("cannot compare " + names.front() + " and " + names[m] + ": output " +
                            std::to_string(d + 1) + " is " + first[d] + " in " + names.front() +
                            " but " + kinds[d] + " in " + names[m] +
                            ", so that a log-probability would be compared with a log-density");
    }
  }
}

ModelComparison compare_evaluations(const std::vector<ModelEvaluation>& evaluations,
                                    const std::vector<std::string>& names) {
  if (evaluations.size() < 2) throw InvalidArgument("a comparison needs at least two models");
  if (names.size() != evaluations.size()) {
    throw InvalidArgument("a comparison got " + std::to_string(names.size()) + " names for " +
                          std::to_string(evaluations.size()) + " models");
  }
  const Index given = pairs_given(evaluations.front());
  for (const auto& evaluation : evaluations) {
    if (pairs_given(evaluation) != given) {
      throw InvalidArgument(
          "the models were evaluated on different numbers of pairs (" + std::to_string(given) +
          " and " + std::to_string(pairs_given(evaluation)) + "): compare them on the same data");
    }
  }
  std::vector<std::vector<std::string>> output_kinds;
  for (const ModelEvaluation& evaluation : evaluations) {
    output_kinds.push_back(evaluation.output_kinds);
  }
  require_comparable_output_kinds(output_kinds, names);
  // The pairs every model scored.
  std::vector<std::vector<Index>> scored;
  for (const auto& evaluation : evaluations) scored.push_back(scored_pairs(evaluation));
  std::vector<Index> compared = scored.front();
  for (const auto& pairs : scored) {
    std::vector<Index> common;
    std::set_intersection(compared.begin(), compared.end(), pairs.begin(), pairs.end(),
                          std::back_inserter(common));
    compared = std::move(common);
  }
  if (compared.size() < 2) {
    throw DataError("only " + std::to_string(compared.size()) + " of " + std::to_string(given) +
                    " pairs have finite scores under every model, too few to compare them");
  }
  ModelComparison comparison;
  comparison.models = names;
  comparison.n = static_cast<Index>(compared.size());
  comparison.pairs_given = given;
  for (Index j = 0, i = 0; j < given; ++j) {
    if (i < comparison.n && compared[static_cast<std::size_t>(i)] == j) {
      ++i;
    } else {
      comparison.excluded.push_back(j);
    }
  }
  comparison.pairs = compared;
  // An atom in one model's y and not in another's (or elsewhere): the log-likelihood and the
  // CDE loss are then against different measures at the atom.
  const auto& atom = evaluations.front().output_atom;
  const bool atoms_differ = std::any_of(
      evaluations.begin(), evaluations.end(),
      [&](const ModelEvaluation& evaluation) { return evaluation.output_atom != atom; });
  for (const auto& column : evaluations.front().scores) {
    const bool shared =
        std::all_of(evaluations.begin(), evaluations.end(), [&](const ModelEvaluation& evaluation) {
          return has_proper_score(evaluation, column.name);
        });
    if (!column.proper || !shared) continue;
    if (atoms_differ && (column.name == "log_likelihood" || column.name == "cde_loss")) {
      comparison.not_compared.push_back(
          {column.name,
           "y has an atom in some of the models and not in the others (or at another value): at "
           "it a log-probability would be compared with a log-density"});
      continue;
    }
    comparison.scores.push_back(column.name);
  }
  const auto score_count = static_cast<Index>(comparison.scores.size());
  const auto model_count = static_cast<Index>(evaluations.size());
  const Index n = comparison.n;
  comparison.means.resize(score_count, model_count);
  comparison.standard_errors.resize(score_count, model_count);
  comparison.best_shares = Matrix::Zero(score_count, model_count);
  for (Index s = 0; s < score_count; ++s) {
    const std::string& name = comparison.scores[static_cast<std::size_t>(s)];
    std::vector<ScoreColumn> columns;
    Matrix losses(model_count, n);
    for (Index m = 0; m < model_count; ++m) {
      const auto model = static_cast<std::size_t>(m);
      columns.push_back(on_pairs(evaluations[model].score(name), scored[model], compared));
      comparison.means(s, m) = columns.back().mean;
      comparison.standard_errors(s, m) = columns.back().standard_error;
      losses.row(m) = as_loss(columns.back()).transpose();
    }
    for (Index j = 0; j < n; ++j) {
      const double best = losses.col(j).minCoeff();
      const Vector winners = (losses.col(j).array() == best).cast<double>();
      comparison.best_shares.row(s) +=
          winners.transpose() / (winners.sum() * static_cast<double>(n));
    }
    for (Index a = 0; a < model_count; ++a) {
      for (Index b = a + 1; b < model_count; ++b) {
        comparison.differences.push_back(paired_difference(
            columns[static_cast<std::size_t>(a)], columns[static_cast<std::size_t>(b)], a, b));
      }
    }
  }
  return comparison;
}

nlohmann::json comparison_to_json(const ModelComparison& comparison) {
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& difference : comparison.differences) {
    differences.push_back({{"score", difference.score},
                           {"first", difference.first},
                           {"second", difference.second},
                           {"mean", difference.mean},
                           {"standard_error", difference.standard_error},
                           {"first_wins", difference.first_wins},
                           {"second_wins", difference.second_wins}});
  }
  nlohmann::json not_compared = nlohmann::json::array();
  for (const auto& score : comparison.not_compared) {
    not_compared.push_back({{"score", score.score}, {"reason", score.reason}});
  }
  return {{"models", comparison.models},
          {"n", comparison.n},
          {"pairs_given", comparison.pairs_given},
          {"pairs", comparison.pairs},
          {"excluded", comparison.excluded},
          {"scores", comparison.scores},
          {"not_compared", not_compared},
          {"means", matrix_rows(comparison.means)},
          {"standard_errors", matrix_rows(comparison.standard_errors)},
          {"best_shares", matrix_rows(comparison.best_shares)},
          {"differences", differences}};
}

}  // namespace cdens

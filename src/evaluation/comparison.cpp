#include "cdens/evaluation/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/error.hpp"

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

PairedDifference paired_difference(const ScoreColumn& a, const ScoreColumn& b, Index first,
                                   Index second) {
  const Vector difference = b.values - a.values;
  const double n = static_cast<double>(difference.size());
  const double mean = difference.mean();
  const double variance = (difference.array() - mean).square().sum() / (n - 1.0);
  const Vector loss_a = as_loss(a);
  const Vector loss_b = as_loss(b);
  return {a.name,
          first,
          second,
          mean,
          std::sqrt(variance / n),
          (loss_a.array() < loss_b.array()).cast<double>().mean(),
          (loss_b.array() < loss_a.array()).cast<double>().mean()};
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

ModelComparison compare_evaluations(const std::vector<ModelEvaluation>& evaluations,
                                    const std::vector<std::string>& names) {
  if (evaluations.size() < 2) throw InvalidArgument("a comparison needs at least two models");
  if (names.size() != evaluations.size()) {
    throw InvalidArgument("a comparison got " + std::to_string(names.size()) + " names for " +
                          std::to_string(evaluations.size()) + " models");
  }
  for (const auto& evaluation : evaluations) {
    if (evaluation.n != evaluations.front().n) {
      throw InvalidArgument("the models were evaluated on different numbers of pairs (" +
                            std::to_string(evaluations.front().n) + " and " +
                            std::to_string(evaluation.n) + "): compare them on the same data");
    }
  }
  ModelComparison comparison;
  comparison.models = names;
  comparison.n = evaluations.front().n;
  for (const auto& column : evaluations.front().scores) {
    const bool shared =
        std::all_of(evaluations.begin(), evaluations.end(), [&](const ModelEvaluation& evaluation) {
          return has_proper_score(evaluation, column.name);
        });
    if (column.proper && shared) comparison.scores.push_back(column.name);
  }
  const auto score_count = static_cast<Index>(comparison.scores.size());
  const auto model_count = static_cast<Index>(evaluations.size());
  const Index n = evaluations.front().n;
  comparison.means.resize(score_count, model_count);
  comparison.standard_errors.resize(score_count, model_count);
  comparison.best_shares = Matrix::Zero(score_count, model_count);
  for (Index s = 0; s < score_count; ++s) {
    const std::string& name = comparison.scores[static_cast<std::size_t>(s)];
    Matrix losses(model_count, n);
    for (Index m = 0; m < model_count; ++m) {
      const ScoreColumn& column = evaluations[static_cast<std::size_t>(m)].score(name);
      comparison.means(s, m) = column.mean;
      comparison.standard_errors(s, m) = column.standard_error;
      losses.row(m) = as_loss(column).transpose();
    }
    for (Index j = 0; j < n; ++j) {
      const double best = losses.col(j).minCoeff();
      const Vector winners = (losses.col(j).array() == best).cast<double>();
      comparison.best_shares.row(s) +=
          winners.transpose() / (winners.sum() * static_cast<double>(n));
    }
    for (Index a = 0; a < model_count; ++a) {
      for (Index b = a + 1; b < model_count; ++b) {
        comparison.differences.push_back(
            paired_difference(evaluations[static_cast<std::size_t>(a)].score(name),
                              evaluations[static_cast<std::size_t>(b)].score(name), a, b));
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
  return {{"models", comparison.models},
          {"n", comparison.n},
          {"scores", comparison.scores},
          {"means", matrix_rows(comparison.means)},
          {"standard_errors", matrix_rows(comparison.standard_errors)},
          {"best_shares", matrix_rows(comparison.best_shares)},
          {"differences", differences}};
}

}  // namespace cdens

#include <algorithm>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/validate.hpp"
#include "evaluation/level_forecasts.hpp"

namespace cdens {
namespace {

void require_pairs(const MatrixView& x, const MatrixView& y) {
  require_same_samples(x, "x", y, "y");
  require_nonempty(y, "the evaluation data");
  require_finite(y, "y");
}

/// Size, probability and whether y is in it of every set that `set_of(distribution, α)` gives
/// (the set's levels, increasing), for every pair and level α.
template <class SetOf>
LevelSets level_sets(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                     const std::vector<double>& levels, SetOf set_of) {
  require_pairs(x, y);
  require_dimension(y, 1, "y");
  require_open_unit_interval(levels, "interval levels");
  const std::vector<detail::LevelDistribution> forecasts = detail::level_forecasts(model, x);
  const auto rows = static_cast<Index>(levels.size());
  LevelSets sets{Matrix(rows, y.cols()), Matrix(rows, y.cols()), Matrix(rows, y.cols())};
  for (Index j = 0; j < y.cols(); ++j) {
    const detail::LevelDistribution& forecast = forecasts[static_cast<std::size_t>(j)];
    for (Index r = 0; r < rows; ++r) {
      const std::vector<double> set = set_of(forecast, levels[static_cast<std::size_t>(r)]);
      double mass = 0.0;
      bool inside = false;
      for (const double level : set) {
        mass += forecast.probability(level);
        inside = inside || level == y(0, j);
      }
      sets.sizes(r, j) = static_cast<double>(set.size());
      sets.masses(r, j) = std::min(mass, 1.0);
      sets.inside(r, j) = inside ? 1.0 : 0.0;
    }
  }
  return sets;
}

}  // namespace

Vector ranked_probability_scores(const ConditionalMixture& model, const MatrixView& x,
                                 const MatrixView& y) {
  const ColumnKernel& kernel =
      detail::require_discrete_scalar_output(model, "the ranked probability score", true);
  require_pairs(x, y);
  require_dimension(y, 1, "y");
  const std::vector<detail::LevelDistribution> forecasts = detail::level_forecasts(model, x);
  Vector scores(y.cols());
  for (Index j = 0; j < y.cols(); ++j) {
    double cdf = 0.0;  // F̂(l_k | x_j), summed level by level
    double score = 0.0;
    for (const double level : kernel.levels()) {
      cdf += forecasts[static_cast<std::size_t>(j)].probability(level);
      const double difference = std::min(cdf, 1.0) - (y(0, j) <= level ? 1.0 : 0.0);
      score += difference * difference;
    }
    scores(j) = score;
  }
  return scores;
}

Vector brier_scores(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y) {
  for (const ColumnKernel& kernel : model.output_kernels()) {
    if (!kernel.is_discrete()) {
      throw InvalidArgument(
          "the Brier score is for a discrete y; this model has a continuous output (its "
          "quadratic score is the CDE loss, cde_loss)");
    }
  }
  return cde_losses(model, x, y).array() + 1.0;
}

LevelSets highest_probability_sets(const ConditionalMixture& model, const MatrixView& x,
                                   const MatrixView& y, const std::vector<double>& levels) {
  detail::require_discrete_scalar_output(model, "highest-probability sets", false);
  return level_sets(
      model, x, y, levels, [](const detail::LevelDistribution& forecast, double level) {
        std::vector<double> set;
        for (const auto& interval : forecast.highest_density_region(level).intervals) {
          set.push_back(interval.lower);  // each interval is one level
        }
        return set;
      });
}

LevelSets central_level_sets(const ConditionalMixture& model, const MatrixView& x,
                             const MatrixView& y, const std::vector<double>& levels) {
  const ColumnKernel& kernel = detail::require_discrete_scalar_output(model, "central sets", true);
  return level_sets(model, x, y, levels,
                    [&](const detail::LevelDistribution& forecast, double level) {
                      const double lower = forecast.quantile(0.5 * (1.0 - level));
                      const double upper = forecast.quantile(0.5 * (1.0 + level));
                      std::vector<double> set;
                      for (const double value : kernel.levels()) {
                        if (value >= lower && value <= upper) set.push_back(value);
                      }
                      return set;
                    });
}

}  // namespace cdens

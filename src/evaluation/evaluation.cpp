#include "cdens/evaluation/evaluation.hpp"

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/csv.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/validate.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/constant_gate.hpp"

namespace cdens {
namespace {

/// Appends a column of per-pair values with its mean and standard error.
void add_column(ModelEvaluation& evaluation, std::string name, bool proper, bool higher_is_better,
                Vector values) {
  ScoreColumn column{std::move(name), proper, higher_is_better, std::move(values)};
  const double n = static_cast<double>(column.values.size());
  column.mean = column.values.mean();
  const double variance = (column.values.array() - column.mean).square().sum() / (n - 1.0);
  column.standard_error = std::sqrt(variance / n);
  evaluation.scores.push_back(std::move(column));
}

/// Appends one column per level, named prefix + level, from the rows of `values`.
void add_level_columns(ModelEvaluation& evaluation, const std::string& prefix, bool proper,
                       const std::vector<double>& levels, const Matrix& values) {
  for (std::size_t r = 0; r < levels.size(); ++r) {
    add_column(evaluation, prefix + format_number(levels[r]), proper, false,
               values.row(static_cast<Index>(r)).transpose());
  }
}

UniformityCheck check_uniformity(std::string name, Vector values,
                                 const EvaluationOptions& options) {
  const UniformityTest test = uniformity_test(values);
  UniformHistogram histogram =
      uniform_histogram(values, options.histogram_bins, options.band_level);
  return {std::move(name), std::move(values), test, std::move(histogram)};
}

void require_options(const EvaluationOptions& options, Index output_dim) {
  if (output_dim == 1) require_open_unit_interval(options.pinball_levels, "pinball levels");
  require_open_unit_interval(options.interval_levels, "interval levels");
  require_open_unit_interval(options.coverage_levels, "coverage levels");
  if (options.coverage_levels.empty()) {
    throw InvalidArgument("the coverage curve needs at least one level");
  }
  if (options.histogram_bins < 1) throw InvalidArgument("the histograms need at least one bin");
  if (!(options.band_level > 0.0 && options.band_level < 1.0)) {
    throw InvalidArgument("the band level must lie strictly between 0 and 1");
  }
}

nlohmann::json vector_json(const Vector& values) {
  return std::vector<double>(values.data(), values.data() + values.size());
}

}  // namespace

const ScoreColumn& ModelEvaluation::score(const std::string& name) const {
  for (const auto& column : scores) {
    if (column.name == name) return column;
  }
  throw InvalidArgument("the evaluation has no score '" + name + "'");
}

ModelEvaluation evaluate_model(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y, const EvaluationOptions& options) {
  require_same_samples(x, "x", y, "y");
  if (y.cols() < 2) {
    throw DataError("an evaluation needs at least 2 pairs (for the standard errors), got " +
                    std::to_string(y.cols()));
  }
  require_dimension(y, model.output_dim(), "y");
  require_options(options, model.output_dim());
  ModelEvaluation evaluation;
  evaluation.n = y.cols();
  evaluation.output_dim = model.output_dim();
  const bool scalar = model.output_dim() == 1;

  add_column(evaluation, "log_likelihood", true, true, model.log_pdf(x, y));
  if (scalar) {
    add_column(evaluation, "crps", true, false, crps(model, x, y));
    add_level_columns(evaluation, "pinball_", true, options.pinball_levels,
                      pinball_losses(model, x, y, options.pinball_levels));
  }
  add_column(evaluation, "cde_loss", true, false, cde_losses(model, x, y));
  if (!scalar) {
    EnergyScores energy = energy_scores(model, x, y, options.draws, options.seed);
    evaluation.energy_draws = energy.draws;
    evaluation.energy_monte_carlo_error =
        std::sqrt(energy.standard_errors.squaredNorm()) / static_cast<double>(y.cols());
    add_column(evaluation, "energy_score", true, false, std::move(energy.values));
  }

  const HighestDensityValues hpd = highest_density_values(model, x, y, options.draws, options.seed);
  evaluation.hpd_draws = hpd.draws;
  Vector pit;
  if (scalar) {
    pit = model.cdf(x, y);
    add_level_columns(evaluation, "central_width_", false, options.interval_levels,
                      central_interval_widths(model, x, options.interval_levels));
    add_level_columns(evaluation, "central_coverage_", false, options.interval_levels,
                      central_coverage(pit, options.interval_levels));
    add_level_columns(evaluation, "hpd_width_", false, options.interval_levels,
                      highest_density_widths(model, x, options.interval_levels));
  }
  add_level_columns(evaluation, "hpd_coverage_", false, options.interval_levels,
                    highest_density_coverage(hpd.values, options.interval_levels));

  if (scalar) evaluation.calibration.push_back(check_uniformity("pit", pit, options));
  evaluation.calibration.push_back(check_uniformity("hpd", hpd.values, options));
  evaluation.coverage =
      coverage_curve(pit, hpd.values, options.coverage_levels, options.band_level);
  return evaluation;
}

ConditionalMixture density_as_conditional(const GaussianMixture& density) {
  // Zero weights have no finite logarithm for the gate; their components carry no mass anyway.
  std::vector<Index> kept;
  for (Index l = 0; l < density.n_components(); ++l) {
    if (density.weights()(l) > 0.0) kept.push_back(l);
  }
  Vector log_weights(static_cast<Index>(kept.size()));
  Matrix centers(density.dimension(), log_weights.size());
  Matrix widths(density.dimension(), log_weights.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const auto k = static_cast<Index>(i);
    log_weights(k) = std::log(density.weights()(kept[i]));
    centers.col(k) = density.centers().col(kept[i]);
    widths.col(k) = density.scales().col(kept[i]);
  }
  return ConditionalMixture(Standardizer::identity(1), density.x_scaling(),
                            std::make_shared<ConstantGate>(1, std::move(log_weights)),
                            std::move(centers), std::move(widths));
}

Matrix density_inputs(Index n) { return Matrix::Zero(1, n); }

ModelEvaluation evaluate_density(const GaussianMixture& density, const MatrixView& x,
                                 const EvaluationOptions& options) {
  return evaluate_model(density_as_conditional(density), density_inputs(x.cols()), x, options);
}

nlohmann::json evaluation_to_json(const ModelEvaluation& evaluation) {
  nlohmann::json scores = nlohmann::json::array();
  for (const auto& column : evaluation.scores) {
    scores.push_back({{"name", column.name},
                      {"proper", column.proper},
                      {"higher_is_better", column.higher_is_better},
                      {"mean", column.mean},
                      {"standard_error", column.standard_error},
                      {"values", vector_json(column.values)}});
  }
  nlohmann::json calibration = nlohmann::json::object();
  for (const auto& check : evaluation.calibration) {
    calibration[check.name] = {{"values", vector_json(check.values)},
                               {"statistic", check.test.statistic},
                               {"p_value", check.test.p_value},
                               {"histogram",
                                {{"edges", vector_json(check.histogram.edges)},
                                 {"counts", vector_json(check.histogram.counts)},
                                 {"band_lower", check.histogram.band_lower},
                                 {"band_upper", check.histogram.band_upper}}}};
  }
  const CoverageCurve& curve = evaluation.coverage;
  nlohmann::json coverage = {{"levels", vector_json(curve.levels)},
                             {"hpd", vector_json(curve.highest_density)},
                             {"band_lower", vector_json(curve.band_lower)},
                             {"band_upper", vector_json(curve.band_upper)}};
  if (curve.central.size() != 0) coverage["central"] = vector_json(curve.central);
  return {{"n", evaluation.n},
          {"output_dim", evaluation.output_dim},
          {"scores", scores},
          {"energy_draws", evaluation.energy_draws},
          {"energy_monte_carlo_error", evaluation.energy_monte_carlo_error},
          {"hpd_draws", evaluation.hpd_draws},
          {"calibration", calibration},
          {"coverage", coverage}};
}

}  // namespace cdens

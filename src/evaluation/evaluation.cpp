#include "cdens/evaluation/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/constant_gate.hpp"
#include "core/random_streams.hpp"
#include "core/validate.hpp"
#include "evaluation/level_forecasts.hpp"
#include "evaluation/randomized_values.hpp"
#include "evaluation/score_parts.hpp"
#include "evaluation/score_selection.hpp"
#include "evaluation/summary.hpp"
#include "io/csv.hpp"

namespace cdens {
namespace {

/// Pairs per block of the scores that take time per pair (the closed forms over pairs of
/// components, the searches of quantiles and regions), between two reports of progress.
constexpr Index kProgressBlock = 32;

/// `answer(first, count)` for every block of pairs in turn, each block a step of `progress` in a
/// stage called `label`.
template <class Answer>
void for_each_pair_block(const std::string& label, Index n, Progress& progress,
                         const Answer& answer) {
  progress.begin(label, n);
  for (Index first = 0; first < n; first += kProgressBlock) {
    const Index count = std::min(kProgressBlock, n - first);
    answer(first, count);
    progress.advance(count);
  }
  progress.end();
}

/// `compute()` as a stage of one step called `label`: a score whose closed form may be one pass
/// over all pairs (for a multivariate or discrete y, the CDE loss's K × K matrix of the
/// components' overlaps, then one product for every pair), so that blocks of pairs would repeat
/// its costly part; the line still says what runs.
template <class Compute>
Vector in_one_step(const std::string& label, Progress& progress, const Compute& compute) {
  progress.begin(label, 1);
  Vector values = compute();
  progress.advance();
  progress.end();
  return values;
}

/// Sets the mean and standard error of a score's values; DataError where they do not fit in a
/// double.
void summarize(ScoreColumn& column) {
  const detail::MeanAndError summary = detail::mean_and_standard_error(column.values);
  column.mean = summary.mean;
  column.standard_error = summary.standard_error;
  if (!std::isfinite(column.mean) || !std::isfinite(column.standard_error)) {
    throw DataError("the mean or standard error of " + column.name +
                    " is beyond the range of a double: its values reach " +
                    format_number(column.values.cwiseAbs().maxCoeff()));
  }
}

void require_options(const EvaluationOptions& options, const detail::ScoreSelection& selection) {
  if (selection.pinball) require_open_unit_interval(options.pinball_levels, "pinball levels");
  if (selection.central || selection.hpd) {
    require_open_unit_interval(options.interval_levels, "interval levels");
    require_open_unit_interval(options.coverage_levels, "coverage levels");
  }
  if (options.histogram_bins < 1) throw InvalidArgument("the histograms need at least one bin");
  if (!(options.band_level > 0.0 && options.band_level < 1.0)) {
    throw InvalidArgument("the band level must lie strictly between 0 and 1");
  }
}

/// What a per-pair quantity is in the report.
enum class Role {
  loss,         ///< a proper score, lower is better
  gain,         ///< a proper score, higher is better (the log-likelihood)
  description,  ///< widths, sizes, masses, coverage indicators: they describe, not compare
  pit,          ///< the PIT values: calibration, and the central coverage of a continuous y
  hpd,          ///< the HPD values: calibration, and the highest-density coverage
};

/// A per-pair quantity over every pair given, before the pairs with non-finite values are left
/// out: one row of `values` per column, named by prefix + level where there are levels.
struct RawValues {
  std::vector<std::string> row_names;
  Matrix values;  ///< rows × pairs
  Role role = Role::loss;
};

RawValues raw_row(const std::string& name, const Vector& values, Role role) {
  return {{name}, values.transpose(), role};
}

std::vector<std::string> level_names(const std::string& prefix, const std::vector<double>& levels) {
  std::vector<std::string> names;
  for (double level : levels) names.push_back(prefix + format_number(level));
  return names;
}

RawValues raw_levels(const std::string& prefix, const std::vector<double>& levels, Matrix values) {
  return {level_names(prefix, levels), std::move(values), Role::description};
}

/// Every per-pair quantity asked for, over every pair given, in the order of the report.
struct RawEvaluation {
  std::vector<RawValues> values;
  Vector energy_errors;  ///< Monte-Carlo standard error of every pair's energy score
  Index energy_draws = 0;
  Index hpd_draws = 0;
};

/// The sizes, masses and coverage of the sets of levels of a discrete y, named prefix +
/// size_α, mass_α and coverage_α.
void add_level_sets(RawEvaluation& raw, const std::string& prefix,
                    const std::vector<double>& levels, LevelSets sets) {
  raw.values.push_back(raw_levels(prefix + "size_", levels, std::move(sets.sizes)));
  raw.values.push_back(raw_levels(prefix + "mass_", levels, std::move(sets.masses)));
  raw.values.push_back(raw_levels(prefix + "coverage_", levels, std::move(sets.inside)));
}

/// What the searches of a one-dimensional continuous y give (a quantile, region or closed form
/// per pair): every pair's CRPS, its quantiles at the pinball levels and then at the central
/// intervals' tails, its CDF and HPD value, and its regions' widths (a row per interval level).
struct SearchedValues {
  Vector crps;
  Matrix quantiles;
  Vector cdf;
  Vector hpd;
  Matrix region_widths;
};

/// The searched values `selection` asks for, from one distribution per pair
/// (ConditionalMixture::scalar_answers: each pair's components reduced, and its highest-density
/// search grid built, once for every score): the slow part of an evaluation, one stage in blocks
/// of pairs.
SearchedValues searched_values(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y, const EvaluationOptions& options,
                               const detail::ScoreSelection& selection, Progress& progress) {
  ConditionalMixture::ScalarQueries queries;
  if (selection.pinball) queries.quantile_probabilities = options.pinball_levels;
  if (selection.central) {
    for (const double tail : detail::central_interval_tails(options.interval_levels))
      queries.quantile_probabilities.push_back(tail);
  }
  if (selection.hpd) queries.coverages = options.interval_levels;
  queries.crps = selection.crps;
  queries.cdf = selection.central;
  queries.highest_density_probability = selection.hpd;
  std::vector<std::string> parts;
  if (selection.crps) parts.emplace_back("CRPS");
  if (!queries.quantile_probabilities.empty()) parts.emplace_back("quantiles");
  if (selection.hpd) parts.emplace_back("highest-density regions");
  std::string label;
  for (std::size_t p = 0; p < parts.size(); ++p)
    label += (p == 0 ? "" : p + 1 == parts.size() ? " and " : ", ") + parts[p];
  const Index n = y.cols();
  SearchedValues values{Vector(queries.crps ? n : 0),
                        Matrix(static_cast<Index>(queries.quantile_probabilities.size()), n),
                        Vector(queries.cdf ? n : 0),
                        Vector(queries.highest_density_probability ? n : 0),
                        Matrix(static_cast<Index>(queries.coverages.size()), n)};
  for_each_pair_block(label, n, progress, [&](Index first, Index count) {
    const ConditionalMixture::ScalarAnswers answers =
        model.scalar_answers(x.middleCols(first, count), y.middleCols(first, count), queries);
    if (queries.crps) values.crps.segment(first, count) = answers.crps;
    values.quantiles.middleCols(first, count) = answers.quantiles;
    if (queries.cdf) values.cdf.segment(first, count) = answers.cdf;
    if (queries.highest_density_probability) {
      values.hpd.segment(first, count) = answers.highest_density_probability;
    }
    values.region_widths.middleCols(first, count) =
        detail::region_widths_of(answers.regions, count);
  });
  return values;
}

/// The quantities `selection` asks for, those of a one-dimensional discrete y (sets of levels,
/// randomised values) or of a continuous one.
RawEvaluation raw_evaluation(const ConditionalMixture& model, const MatrixView& x,
                             const MatrixView& y, const EvaluationOptions& options,
                             const detail::ScoreSelection& selection, Progress& progress) {
  const bool scalar = model.output_dim() == 1;
  const bool discrete = detail::has_discrete_scalar_output(model);
  const std::vector<double>& levels = options.interval_levels;
  RawEvaluation raw;
  auto& values = raw.values;
  if (selection.log_likelihood) {
    values.push_back(raw_row("log_likelihood", model.log_pdf(x, y), Role::gain));
  }
  // The scores that search or sum over each pair's components (a KCDE of 3,000 components on 850
  // pairs: CRPS 3.3 s, highest-density regions 2 s) are one stage in blocks of pairs; the CDE loss
  // of a multivariate or discrete y, through the components' overlaps, one of its own.
  const bool searched = scalar && !discrete &&
                        (selection.crps || selection.pinball || selection.central || selection.hpd);
  const SearchedValues searches =
      searched ? searched_values(model, x, y, options, selection, progress) : SearchedValues{};
  if (selection.crps) values.push_back(raw_row("crps", searches.crps, Role::loss));
  if (selection.rps) {
    values.push_back(raw_row("rps", ranked_probability_scores(model, x, y), Role::loss));
  }
  const auto pinball_levels = static_cast<Index>(options.pinball_levels.size());
  if (selection.pinball) {
    RawValues pinball =
        raw_levels("pinball_", options.pinball_levels,
                   detail::pinball_losses_of(searches.quantiles.topRows(pinball_levels), y,
                                             options.pinball_levels));
    pinball.role = Role::loss;
    values.push_back(std::move(pinball));
  }
  if (selection.cde_loss) {
    values.push_back(raw_row(
        "cde_loss", in_one_step("CDE loss", progress, [&] { return cde_losses(model, x, y); }),
        Role::loss));
  }
  if (selection.brier) {
    values.push_back(raw_row(
        "brier", in_one_step("Brier score", progress, [&] { return brier_scores(model, x, y); }),
        Role::loss));
  }
  if (selection.energy_score) {
    // Draws for every pair: with the highest-density regions the slow part.
    progress.begin("energy score", y.cols());
    EnergyScores scores = energy_scores(model, x, y, options.draws, options.seed, progress);
    progress.end();
    raw.energy_draws = scores.draws;
    raw.energy_errors = std::move(scores.standard_errors);
    values.push_back(raw_row("energy_score", scores.values, Role::loss));
  }
  if (selection.central) {
    if (discrete) {
      add_level_sets(raw, "central_", levels, central_level_sets(model, x, y, levels));
      values.push_back(raw_row("pit", pit_values(model, x, y, options.seed), Role::pit));
    } else {
      const Index first = selection.pinball ? pinball_levels : 0;
      values.push_back(raw_levels(
          "central_width_", levels,
          detail::central_widths_of(searches.quantiles, first, static_cast<Index>(levels.size()))));
      values.push_back(
          raw_row("pit",
                  detail::randomized_at_atom(model, x, y, options.seed,
                                             random_stream::randomized_pit, searches.cdf),
                  Role::pit));
    }
  }
  if (selection.hpd) {
    if (scalar && !discrete) {
      values.push_back(raw_levels("hpd_width_", levels, searches.region_widths));
      // The pairs at an atom, randomised over its jump as highest_density_values does
      // (scores.hpp).
      values.push_back(
          raw_row("hpd",
                  detail::randomized_at_atom(model, x, y, options.seed,
                                             random_stream::randomized_hpd, searches.hpd),
                  Role::hpd));
    } else {
      if (discrete) {
        add_level_sets(raw, "hpd_", levels, highest_probability_sets(model, x, y, levels));
      }
      // Exact and randomised for a discrete y; from draws (one random stream per pair) for
      // d_y > 1.
      if (!scalar) progress.begin("HPD values by sampling", y.cols());
      HighestDensityValues hpd =
          highest_density_values(model, x, y, options.draws, options.seed, progress);
      if (!scalar) progress.end();
      raw.hpd_draws = hpd.draws;
      values.push_back(raw_row("hpd", hpd.values, Role::hpd));
    }
  }
  return raw;
}

/// Pairs whose values are all finite, and the first non-finite value of every other pair.
std::vector<Index> finite_pairs(const std::vector<RawValues>& raw, Index n,
                                std::vector<ExcludedPair>& excluded) {
  std::vector<Index> kept;
  for (Index j = 0; j < n; ++j) {
    bool finite = true;
    for (const RawValues& quantity : raw) {
      for (Index r = 0; finite && r < quantity.values.rows(); ++r) {
        if (!std::isfinite(quantity.values(r, j))) {
          excluded.push_back(
              {j, quantity.row_names[static_cast<std::size_t>(r)], quantity.values(r, j)});
          finite = false;
        }
      }
      if (!finite) break;
    }
    if (finite) kept.push_back(j);
  }
  return kept;
}

Matrix kept_columns(const Matrix& values, const std::vector<Index>& kept) {
  Matrix result(values.rows(), static_cast<Index>(kept.size()));
  for (std::size_t i = 0; i < kept.size(); ++i)
    result.col(static_cast<Index>(i)) = values.col(kept[i]);
  return result;
}

/// Appends one score column per row of `values` (already on the kept pairs) and level.
void add_kept_columns(ModelEvaluation& evaluation, const std::vector<std::string>& names,
                      bool proper, bool higher_is_better, const Matrix& values) {
  for (Index r = 0; r < values.rows(); ++r) {
    ScoreColumn column{names[static_cast<std::size_t>(r)], proper, higher_is_better,
                       values.row(r).transpose()};
    summarize(column);
    evaluation.scores.push_back(std::move(column));
  }
}

/// Appends the score columns of a quantity (one per row), on the kept pairs.
void add_columns(ModelEvaluation& evaluation, const RawValues& raw) {
  add_kept_columns(evaluation, raw.row_names, raw.role != Role::description, raw.role == Role::gain,
                   kept_columns(raw.values, evaluation.pairs));
}

/// Appends the coverage indicators of the kept pairs, one column per level.
void add_coverage_columns(ModelEvaluation& evaluation, const std::string& prefix,
                          const std::vector<double>& levels, const Matrix& inside) {
  add_kept_columns(evaluation, level_names(prefix, levels), false, false, inside);
}

UniformityCheck check_uniformity(std::string name, bool randomized, Vector values,
                                 const EvaluationOptions& options) {
  const UniformityTest test = uniformity_test(values);
  UniformHistogram histogram =
      uniform_histogram(values, options.histogram_bins, options.band_level);
  return {std::move(name), randomized, std::move(values), test, std::move(histogram)};
}

nlohmann::json vector_json(const Vector& values) {
  return std::vector<double>(values.data(), values.data() + values.size());
}

}  // namespace

const std::vector<std::string>& evaluation_score_names() {
  static const std::vector<std::string> names{"log_likelihood", "crps",     "rps",
                                              "pinball",        "cde_loss", "brier",
                                              "energy_score",   "central",  "hpd"};
  return names;
}

const ScoreColumn& ModelEvaluation::score(const std::string& name) const {
  for (const auto& column : scores) {
    if (column.name == name) return column;
  }
  throw InvalidArgument("the evaluation has no score '" + name + "'");
}

ModelEvaluation evaluate_model(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y, const EvaluationOptions& options,
                               Progress& progress) {
  require_same_samples(x, "x", y, "y");
  if (y.cols() < 2) {
    throw DataError("an evaluation needs at least 2 pairs (for the standard errors), got " +
                    std::to_string(y.cols()));
  }
  require_dimension(y, model.output_dim(), "y");
  const detail::ScoreSelection selection = detail::select_scores(options.scores, model);
  require_options(options, selection);
  const Index n = y.cols();
  const bool discrete = any_discrete(model.output_kernels());
  // Sets of levels carry their own coverage; the randomised values give only the curve.
  const bool coverage_from_values = !detail::has_discrete_scalar_output(model);
  const RawEvaluation raw = raw_evaluation(model, x, y, options, selection, progress);

  ModelEvaluation evaluation;
  evaluation.pairs_given = n;
  evaluation.output_dim = model.output_dim();
  for (const ColumnKernel& kernel : model.output_kernels()) {
    evaluation.output_kinds.push_back(to_string(kernel.kind()));
    evaluation.output_levels.push_back(kernel.n_levels());
  }
  evaluation.not_applicable = detail::inapplicable_scores(model);
  if (model.atom()) evaluation.output_atom = model.atom()->value;
  evaluation.pairs = finite_pairs(raw.values, n, evaluation.excluded);
  evaluation.n = static_cast<Index>(evaluation.pairs.size());
  if (evaluation.n < 2) {
    const ExcludedPair& first = evaluation.excluded.front();
    throw DataError("only " + std::to_string(evaluation.n) + " of " + std::to_string(n) +
                    " pairs have finite scores, too few for an evaluation (pair " +
                    std::to_string(first.pair + 1) + ": " + first.score + " = " +
                    format_number(first.value) + ")");
  }
  Vector pit_values;
  Vector hpd_values;
  for (const RawValues& values : raw.values) {
    if (values.role == Role::pit) {
      pit_values = kept_columns(values.values, evaluation.pairs).row(0).transpose();
      if (coverage_from_values) {
        add_coverage_columns(evaluation, "central_coverage_", options.interval_levels,
                             central_coverage(pit_values, options.interval_levels));
      }
    } else if (values.role == Role::hpd) {
      hpd_values = kept_columns(values.values, evaluation.pairs).row(0).transpose();
      if (coverage_from_values) {
        add_coverage_columns(evaluation, "hpd_coverage_", options.interval_levels,
                             highest_density_coverage(hpd_values, options.interval_levels));
      }
    } else {
      add_columns(evaluation, values);
    }
  }
  if (raw.energy_draws > 0) {
    evaluation.energy_draws = raw.energy_draws;
    const Vector errors = kept_columns(raw.energy_errors.transpose(), evaluation.pairs).row(0);
    evaluation.energy_monte_carlo_error =
        std::sqrt(errors.squaredNorm()) / static_cast<double>(evaluation.n);
  }
  evaluation.hpd_draws = raw.hpd_draws;
  const bool randomized = discrete || model.atom().has_value();
  if (pit_values.size() != 0) {
    evaluation.calibration.push_back(check_uniformity("pit", randomized, pit_values, options));
  }
  if (hpd_values.size() != 0) {
    evaluation.calibration.push_back(check_uniformity("hpd", randomized, hpd_values, options));
  }
  if (pit_values.size() != 0 || hpd_values.size() != 0) {
    evaluation.coverage =
        coverage_curve(pit_values, hpd_values, options.coverage_levels, options.band_level);
  }
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
                            MixtureOutputs::gaussian(std::move(centers), std::move(widths)));
}

Matrix density_inputs(Index n) { return Matrix::Zero(1, n); }

ModelEvaluation evaluate_density(const GaussianMixture& density, const MatrixView& x,
                                 const EvaluationOptions& options, Progress& progress) {
  return evaluate_model(density_as_conditional(density), density_inputs(x.cols()), x, options,
                        progress);
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
    calibration[check.name] = {{"randomized", check.randomized},
                               {"values", vector_json(check.values)},
                               {"statistic", check.test.statistic},
                               {"p_value", check.test.p_value},
                               {"histogram",
                                {{"edges", vector_json(check.histogram.edges)},
                                 {"counts", vector_json(check.histogram.counts)},
                                 {"band_lower", check.histogram.band_lower},
                                 {"band_upper", check.histogram.band_upper}}}};
  }
  nlohmann::json excluded = nlohmann::json::array();
  for (const auto& pair : evaluation.excluded) {
    // The value as text: JSON has no infinity or NaN.
    excluded.push_back(
        {{"pair", pair.pair}, {"score", pair.score}, {"value", format_number(pair.value)}});
  }
  nlohmann::json not_applicable = nlohmann::json::array();
  for (const auto& score : evaluation.not_applicable) {
    not_applicable.push_back({{"score", score.score}, {"reason", score.reason}});
  }
  nlohmann::json document = {{"n", evaluation.n},
                             {"pairs_given", evaluation.pairs_given},
                             {"pairs", evaluation.pairs},
                             {"excluded", excluded},
                             {"output_dim", evaluation.output_dim},
                             {"output_kinds", evaluation.output_kinds},
                             {"output_levels", evaluation.output_levels},
                             {"not_applicable", not_applicable},
                             {"scores", scores},
                             {"energy_draws", evaluation.energy_draws},
                             {"energy_monte_carlo_error", evaluation.energy_monte_carlo_error},
                             {"hpd_draws", evaluation.hpd_draws},
                             {"calibration", calibration}};
  if (evaluation.output_atom) document["output_atom"] = *evaluation.output_atom;
  const CoverageCurve& curve = evaluation.coverage;
  if (curve.levels.size() != 0) {
    nlohmann::json coverage = {{"levels", vector_json(curve.levels)},
                               {"band_lower", vector_json(curve.band_lower)},
                               {"band_upper", vector_json(curve.band_upper)}};
    if (curve.highest_density.size() != 0) coverage["hpd"] = vector_json(curve.highest_density);
    if (curve.central.size() != 0) coverage["central"] = vector_json(curve.central);
    document["coverage"] = coverage;
  }
  return document;
}

}  // namespace cdens

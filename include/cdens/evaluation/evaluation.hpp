#pragma once
// Everything cdens says about a fitted model on held-out data, computed once for the command
// (`cdens evaluate`, `cdens compare`) and the Python package (cdens.metrics): the per-pair scores
// with their means and standard errors, and the calibration of the PIT and HPD values.
//
// Density models p(x) are evaluated as the conditional mixture they are with an empty x
// (density_as_conditional): every score of a conditional model applies to them, those of a
// one-dimensional y (CRPS, pinball, central intervals, PIT) when d = 1.
//
// A discrete y (KCDE with the output declared discrete or ordered: p̂ is a probability mass
// function over the output's levels) has its own scores (scores.hpp): the
// log-likelihood is a log-probability, the ranked probability score (an ordered y) and the Brier
// score take the places of the CRPS and the CDE loss, sets of levels those of intervals, and the
// PIT (an ordered y) and HPD values are randomised over the probability of y's own level so that
// they stay uniform for a calibrated model. ModelEvaluation::not_applicable says what was left
// out and why.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/evaluation/scores.hpp"

namespace cdens {

struct EvaluationOptions {
  /// Levels τ of the pinball losses (one-dimensional y).
  std::vector<double> pinball_levels{0.1, 0.5, 0.9};
  /// Levels α of the central and highest-density intervals whose width and coverage are scored.
  std::vector<double> interval_levels{0.5, 0.9};
  /// Nominal levels of the coverage curve.
  std::vector<double> coverage_levels{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
                                      0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95};
  /// Bins of the PIT and HPD histograms.
  Index histogram_bins = 10;
  /// Probability of the binomial bands of a calibrated model (pointwise).
  double band_level = 0.95;
  /// Draws of p̂(·|x_i) per pair for the energy score and the HPD values when d_y > 1 (even).
  Index draws = 1000;
  /// Seed of those draws and of the uniform draws of the randomised PIT and HPD values of a
  /// discrete y.
  std::uint64_t seed = 0;
  /// The scores to compute, by the names of evaluation_score_names() (empty: every one that
  /// applies to the model's y). "central" is the central intervals' widths and coverage with the
  /// PIT values, "hpd" the highest-density regions' widths and coverage with the HPD values (for
  /// a discrete y: sets of levels, their sizes, probabilities and coverage).
  std::vector<std::string> scores;
};

/// The names EvaluationOptions::scores takes: log_likelihood, crps, rps, pinball, cde_loss,
/// brier, energy_score, central, hpd.
const std::vector<std::string>& evaluation_score_names();

/// A score of evaluation_score_names() that does not apply to a model's y, and why.
struct InapplicableScore {
  std::string score;
  std::string reason;
};

/// A pair left out of an evaluation because one of its scores is not finite (a y far beyond
/// every component has log-likelihood −∞; averaging it would make every mean NaN or infinite).
struct ExcludedPair {
  Index pair = 0;     ///< its index among the pairs given (0-based)
  std::string score;  ///< the first of its scores that is not finite
  double value = 0.0;
};

/// One per-pair quantity over the data.
struct ScoreColumn {
  std::string name;
  /// A proper scoring rule (compared between models); false for interval widths and coverage
  /// indicators, which describe a model but reward no single best one.
  bool proper = true;
  bool higher_is_better = false;  ///< the log-likelihood; every other score is a loss
  Vector values;
  double mean = 0.0;
  double standard_error = 0.0;  ///< sd / √n of the values
};

/// The PIT or the HPD values with their uniformity test and histogram.
struct UniformityCheck {
  std::string name;  ///< "pit" or "hpd"
  /// Whether the values are randomised over the probability of y's own level (a discrete y).
  bool randomized = false;
  Vector values;
  UniformityTest test;
  UniformHistogram histogram;
};

struct ModelEvaluation {
  /// The pairs scored: those given less those excluded.
  Index n = 0;
  Index pairs_given = 0;
  /// The index among the pairs given of every pair scored (n of them, increasing): column j of
  /// every per-pair value below is pair pairs[j].
  std::vector<Index> pairs;
  /// The pairs left out, in order: a pair is scored only if every one of its values is finite.
  std::vector<ExcludedPair> excluded;
  Index output_dim = 0;
  /// The kind of every output: "continuous", "ordered" or "unordered" (to_string(ColumnKind)).
  std::vector<std::string> output_kinds;
  /// The number of levels of every output (0 for a continuous one).
  std::vector<Index> output_levels;
  /// The scores that do not apply to this y, with why (none of them is computed).
  std::vector<InapplicableScore> not_applicable;
  /// The atom of a one-dimensional y that has one (ConditionalMixture::atom): log_likelihood is
  /// log P(y = a | x) at it and a log-density elsewhere, cde_loss against the same mixed measure,
  /// and the PIT and HPD values of the pairs at it are randomised over its probability.
  std::optional<double> output_atom;
  /// log_likelihood, crps, rps, pinball_τ, cde_loss, brier, energy_score, then
  /// central_width_α, central_coverage_α, hpd_width_α, hpd_coverage_α: each where it applies
  /// (d_y = 1 for crps, pinball, central and hpd widths; energy_score for a continuous
  /// d_y > 1). A one-dimensional discrete y has rps (ordered) and brier in place of crps,
  /// pinball and cde_loss, and sets of levels in place of intervals: central_size_α,
  /// central_mass_α, central_coverage_α (ordered), hpd_size_α, hpd_mass_α, hpd_coverage_α
  /// (scores.hpp: the number of levels in the set, its probability, whether y is in it).
  std::vector<ScoreColumn> scores;
  /// Draws per pair behind the energy score (d_y > 1; 0 otherwise) and the Monte-Carlo standard
  /// error of its mean, √(Σ se_i²) / n.
  Index energy_draws = 0;
  double energy_monte_carlo_error = 0.0;
  /// pit (d_y = 1; with "central") and hpd (with "hpd"); randomised for a discrete y and at an
  /// atom.
  std::vector<UniformityCheck> calibration;
  /// Draws per pair behind the HPD values (0: exact).
  Index hpd_draws = 0;
  /// Empty (no levels) when neither "central" nor "hpd" was computed. For a discrete y, the
  /// share of pairs whose randomised PIT or HPD value falls in the α-interval (|u − ½| ≤ α/2,
  /// h ≤ α): α for a calibrated model, where the sets of levels themselves cover their mass.
  CoverageCurve coverage;

  /// The score of that name; InvalidArgument if there is none.
  const ScoreColumn& score(const std::string& name) const;
};

/// Scores and calibration of `model` on the pairs (x, y) (user's units, one pair per column).
/// A pair with a score that is not finite is left out of every score and of the calibration
/// (ModelEvaluation::excluded names it). DataError for fewer than two pairs (given, or with
/// finite scores), non-finite data, or a mean or standard error beyond the range of a double;
/// InvalidArgument for shapes or options that do not fit. The highest-density parts, the slow
/// ones, report their progress over the pairs to `progress`.
ModelEvaluation evaluate_model(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y, const EvaluationOptions& options = {},
                               Progress& progress = silent_progress());

/// p(x) as a conditional mixture of y = x given a one-dimensional input that it ignores (a
/// constant gate with the mixture's positive weights); query it with density_inputs(n).
ConditionalMixture density_as_conditional(const GaussianMixture& density);
/// The n inputs (1 × n, zeros) of density_as_conditional.
Matrix density_inputs(Index n);

/// evaluate_model of density_as_conditional on the points x (d × n).
ModelEvaluation evaluate_density(const GaussianMixture& density, const MatrixView& x,
                                 const EvaluationOptions& options = {},
                                 Progress& progress = silent_progress());

/// The evaluation as JSON (per-pair values included), for the Python package and the plots.
nlohmann::json evaluation_to_json(const ModelEvaluation& evaluation);

// Two or more models scored on the same pairs: for every proper score they share, each model's
// mean, the mean difference of every two models with its paired standard error, and the share of
// pairs on which each wins. Pairing matters: the scores of two models on the same pair are
// strongly correlated, so the standard error of the mean difference, sd(s_b − s_a)/√n, is far
// smaller than what the two means' own standard errors suggest.

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
  /// The proper scores every model has, in the first model's order, but those of not_compared.
  std::vector<std::string> scores;
  /// Proper scores the models share but which compare nothing, with why: the log-likelihood and
  /// the CDE loss where the models' y has an atom in one and not in another (or at another
  /// value), a log-probability at the atom against a log-density.
  std::vector<InapplicableScore> not_compared;
  Matrix means;            ///< scores × models
  Matrix standard_errors;  ///< scores × models, sd / √n of each model's values
  /// scores × models: share of pairs on which the model has the best score of all, a tie of t
  /// models giving each 1/t.
  Matrix best_shares;
  /// Every pair of models (a < b) on every score.
  std::vector<PairedDifference> differences;
};

/// InvalidArgument where an output is continuous in one model and discrete in another (a
/// log-density and a log-probability are on no common scale): output_kinds[m] are model m's
/// (ModelEvaluation::output_kinds), names[m] its label; a model with another number of outputs
/// is not checked here. compare_evaluations checks it; a front end may check it before any model
/// is scored.
void require_comparable_output_kinds(const std::vector<std::vector<std::string>>& output_kinds,
                                     const std::vector<std::string>& names);

/// Compares evaluations of the same pairs (the same number given) on the pairs that every one
/// scored; `names` label them. InvalidArgument for fewer than two models, names that do not
/// match, evaluations of different data sizes, or an output that is continuous in one model and
/// discrete in another (a log-density and a log-probability are on no common scale); DataError
/// when fewer than two pairs remain.
ModelComparison compare_evaluations(const std::vector<ModelEvaluation>& evaluations,
                                    const std::vector<std::string>& names);

nlohmann::json comparison_to_json(const ModelComparison& comparison);

}  // namespace cdens

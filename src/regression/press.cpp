#include "cdens/regression/press.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

#include "cdens/core/communicator.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/spelling.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "io/text.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"
#include "regression/press_design_products.hpp"
#include "regression/press_gate.hpp"
#include "regression/press_optimizer.hpp"
#include "regression/press_smoother.hpp"

namespace cdens {
namespace {

// Below this many fitting samples the restarts run in parallel (each on one thread); above it
// the restarts run one after the other and the blocks of each evaluation in parallel. Both do
// the same arithmetic, so the choice does not change the result.
constexpr Index kParallelRestartLimit = 8192;

Index default_states(Index n) {
  return std::max<Index>(2, std::lround(std::log(static_cast<double>(n))));
}

/// Mean squared error of the predictions Wᵀ ȳ of `design` against t, over the `count` held-out
/// samples of every rank (a collective call; each rank passes its own).
double holdout_mse(const Matrix& coefficients, const Vector& state_means,
                   const PressDesignProducts& design, const Vector& t, Index count, int threads,
                   const Communicator& communicator) {
  const Matrix weights = design.state_weights(coefficients, threads);
  double squares = (t - weights.transpose() * state_means).squaredNorm();
  communicator.allreduce_sum(&squares, 1);
  return squares / static_cast<double>(count);
}

/// Whether each of this rank's samples is held out (1) or fitted (0): the first round(f · n)
/// samples of a seeded permutation of every rank's n are held out (§5's 80/20 split). Rank 0
/// draws the permutation as one process does and sends each rank its samples' flags.
std::vector<std::int32_t> holdout_flags(Index local_rows, Index n, Index held, std::uint64_t seed,
                                        const Communicator& communicator) {
  std::vector<std::int32_t> every;
  if (communicator.rank() == 0) {
    every.assign(static_cast<std::size_t>(n), 0);
    const std::vector<Index> order = Rng(seed, random_stream::kPressHoldOut).permutation(n);
    for (Index k = 0; k < held; ++k) every[static_cast<std::size_t>(order[k])] = 1;
  }
  return communicator.scatter_from_root(every, local_rows);
}

struct StartResult {
  Matrix coefficients;
  detail::PressOptimization optimization;
};

}  // namespace

PressFit fit_press(const MatrixView& x, const MatrixView& y, const PressOptions& options,
                   const FitContext& context) {
  const auto started = std::chrono::steady_clock::now();
  // Each rank passes its own rows; what decides the model — the standardisation, the hold-out
  // split, the starts — is that of every rank's rows, so any number of ranks fits the same model
  // (docs/distributed.md).
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    require_training_shard(x, y, communicator);
    if (y.rows() != 1) {
      throw InvalidArgument("PRESS regresses one output; y has " + std::to_string(y.rows()) +
                            " dimensions");
    }
    PressRegressionOptions one_count;
    one_count.press = options;
    press_option_table().validate(one_count);
  });
  require_equal_on_every_rank(communicator,
                              {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                              "the dimensions of x and y");
  const Index n = communicator.sum_counts(x.cols());
  if (n == 0) throw DataError("x has no samples on any process");
  const Index q = x.rows() + 1;
  const Index j_count = options.n_states > 0 ? options.n_states : default_states(n);
  if (options.smoothness_weight > 0.0 &&
      !(options.target_dof >= 1.0 && options.target_dof <= static_cast<double>(j_count))) {
    throw InvalidArgument(
        "a smoothness weight mu (smoothness_weight) above 0 needs the target degrees of freedom "
        "nu_smooth (target_dof) in [1, J = " +
        std::to_string(j_count) + "]");
  }
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  const Standardizer x_scaling = options.standardize
                                     ? Standardizer::fit(x, communicator, "x", x_names)
                                     : Standardizer::identity(x.rows());
  const Standardizer y_scaling = Standardizer::fit(y, communicator, "y", y_names);
  const Matrix z = x_scaling.transform(x);
  const Vector t = y_scaling.transform(y).row(0).transpose();

  // The 80/20 split of §5: the first round(f · n) samples of a seeded permutation are held out.
  const Index held =
      options.holdout_fraction > 0.0
          ? static_cast<Index>(std::lround(options.holdout_fraction * static_cast<double>(n)))
          : 0;
  if (options.holdout_fraction > 0.0 && held == 0) {
    throw InvalidArgument("the hold-out fraction (" +
                          message_spelling().option_name("holdout_fraction") + ") " +
                          exact_text(options.holdout_fraction) + " of " + std::to_string(n) +
                          " samples of x holds out none; give 0 to train on all");
  }
  if (n - held <= j_count) {
    throw InvalidArgument("PRESS with J = " + std::to_string(j_count) + " states needs more than " +
                          std::to_string(j_count) + " fitting samples of x; there are " +
                          std::to_string(n - held));
  }
  // This rank's held-out and fitting samples, each in increasing order.
  std::vector<Index> fit_rows;
  std::vector<Index> holdout_rows;
  if (held > 0) {
    const std::vector<std::int32_t> flags =
        holdout_flags(x.cols(), n, held, options.seed, communicator);
    for (Index i = 0; i < x.cols(); ++i) {
      (flags[static_cast<std::size_t>(i)] != 0 ? holdout_rows : fit_rows).push_back(i);
    }
  } else {
    fit_rows.resize(static_cast<std::size_t>(x.cols()));
    std::iota(fit_rows.begin(), fit_rows.end(), Index{0});
  }

  Matrix coefficients = Matrix::Zero(q, j_count);
  FitReport report;
  report.method = "press";
  int evaluations = 0;
  if (j_count > 1) {
    Vector fit_t(static_cast<Index>(fit_rows.size()));
    for (std::size_t i = 0; i < fit_rows.size(); ++i) fit_t(static_cast<Index>(i)) = t(fit_rows[i]);
    // The held-out samples in the fitting samples' precision and storage rule.
    const PressDesignProducts holdout_design(press_design(gather_samples(z, holdout_rows)),
                                             options.single_precision, communicator);
    Vector holdout_t(static_cast<Index>(holdout_rows.size()));
    for (std::size_t i = 0; i < holdout_rows.size(); ++i) {
      holdout_t(static_cast<Index>(i)) = t(holdout_rows[i]);
    }
    const int threads = resolve_threads(context.threads);
    // On many ranks every evaluation is a collective call: the starts take turns.
    const bool parallel_starts =
        communicator.size() == 1 && fit_t.size() <= kParallelRestartLimit && options.n_restarts > 1;
    const int objective_threads = parallel_starts ? 1 : threads;
    const PressObjective objective(press_design(gather_samples(z, fit_rows)), fit_t,
                                   options.criterion,
                                   {options.smoothness_weight, options.target_dof},
                                   objective_threads, options.single_precision, communicator);
    const PressParametrization parametrization(q, j_count, options.lasso_weight);
    const detail::PressHoldoutScore score = [&](const Matrix& b, const PressEvaluation& training,
                                                double value) {
      return held == 0 ? value
                       : holdout_mse(b, training.state_means, holdout_design, holdout_t, held,
                                     objective_threads, communicator);
    };
    const detail::PressOptimizerSettings settings{options.optimizer, options.learning_rate,
                                                  options.patience, options.max_iter, options.tol};
    std::vector<StartResult> starts(static_cast<std::size_t>(options.n_restarts));
    context.progress.begin("PRESS starts", options.n_restarts);
    const auto run_start = [&](Index start) {
      Rng rng(options.seed, random_stream::press_start(start));
      Matrix initial(q, j_count);
      for (Index j = 0; j < j_count; ++j) {
        for (Index r = 0; r < q; ++r) initial(r, j) = options.init_scale * rng.normal();
      }
      initial.colwise() -= initial.rowwise().mean();  // the sum-to-zero constraint of §4
      auto& result = starts[static_cast<std::size_t>(start)];
      result.optimization = detail::minimize_press(
          objective, parametrization, parametrization.parameters(initial), score, settings);
      result.coefficients = parametrization.coefficients(result.optimization.theta);
      context.progress.advance();
    };
    if (parallel_starts) {
      parallel_for(threads, options.n_restarts, run_start);
    } else {
      for (Index start = 0; start < options.n_restarts; ++start) run_start(start);
    }
    context.progress.end();
    std::size_t best = 0;
    for (std::size_t s = 1; s < starts.size(); ++s) {
      if (starts[s].optimization.score < starts[best].optimization.score) best = s;
    }
    coefficients = starts[best].coefficients;
    int stopped_early = 0;
    for (const auto& start : starts) {
      evaluations += start.optimization.evaluations;
      stopped_early += start.optimization.stopped_early ? 1 : 0;
    }
    if (held > 0) {
      report.statistics["holdout_mse"] =
          starts[best].optimization.score * y_scaling.scale()(0) * y_scaling.scale()(0);
    }
    report.statistics["objective"] = starts[best].optimization.value;
    report.statistics["sparse_design"] = objective.sparse_design() ? 1.0 : 0.0;
    report.statistics["best_evaluation"] = starts[best].optimization.best_evaluation;
    report.statistics["best_start"] = static_cast<double>(best);
    report.statistics["starts_stopped_early"] = stopped_early;
    report.statistics["optimizer_status"] = starts[best].optimization.status;
    report.statistics["nonzero_coefficients"] =
        static_cast<double>((coefficients.bottomRows(q - 1).array() != 0.0).count());
  }

  // States of every training sample, ordered by increasing ȳ⁽ʲ⁾ (§4).
  const Matrix design = press_design(z);
  Matrix weights = press_state_weights(coefficients, design);
  const PressSmoothing unordered = press_smoothing(weights, t, communicator);
  std::vector<Index> order(static_cast<std::size_t>(j_count));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return unordered.state_means(a) < unordered.state_means(b);
  });
  coefficients = Matrix(coefficients(Eigen::all, order));
  weights = Matrix(weights(order, Eigen::all));
  const PressSmoothing smoothing = press_smoothing(weights, t, communicator);

  const double y_mean = y_scaling.mean()(0);
  const double y_scale = y_scaling.scale()(0);
  ConditionalMixture model =
      make_press_mixture(x_scaling, y_scaling, coefficients, weights, t, communicator);
  PressStateSummary summary = press_state_summary(model);
  PressFit fit{std::move(model),
               std::move(report),
               std::move(summary.coefficients),
               std::move(summary.state_means),
               smoothing.state_sizes,
               smoothing.degrees_of_freedom,
               weights,
               (smoothing.fitted.array() * y_scale + y_mean).matrix(),
               smoothing.smoother_diagonal,
               press_state_entropies(weights),
               0.0,
               0.0};
  fit.training_mse = (y.row(0).transpose() - fit.fitted).squaredNorm();
  communicator.allreduce_sum(&fit.training_mse, 1);
  fit.training_mse /= static_cast<double>(n);
  const auto parameters = static_cast<double>((j_count - 1) * q);
  fit.aic = static_cast<double>(n) * std::log(fit.training_mse) + 2.0 * parameters;  // eq. (37)

  FitReport& out = fit.report;
  out.hyperparameters["n_states"] = static_cast<double>(j_count);
  out.statistics["n_train"] = static_cast<double>(n);
  out.statistics["n_fit"] = static_cast<double>(n - held);
  out.statistics["n_holdout"] = static_cast<double>(held);
  out.statistics["restarts"] = options.n_restarts;
  out.statistics["evaluations"] = evaluations;
  out.statistics["degrees_of_freedom"] = fit.degrees_of_freedom;
  out.statistics["training_mse"] = fit.training_mse;
  out.statistics["aic"] = fit.aic;
  out.statistics["parameters"] = parameters;
  // The AIC table of select_press_states replaces this when J is chosen.
  out.parameter_choice =
      "none: n_states = " + std::to_string(j_count) + " is given (max_states chooses it by AIC)" +
      (j_count > 1 ? "; the states' coefficients minimise the PRESS criterion from " +
                         std::to_string(options.n_restarts) + " random starts, the start of the " +
                         (held == 0 ? std::string("smallest criterion")
                                    : std::string("smallest hold-out MSE")) +
                         " kept"
                   : std::string());
  if (j_count > 1 && fit.degrees_of_freedom < 0.5 * static_cast<double>(j_count)) {
    out.warnings.push_back(
        "the estimated degrees of freedom nu = " + std::to_string(fit.degrees_of_freedom) +
        " are far below J = " + std::to_string(j_count) + ": fewer states may do (paper §4.3)");
  }
  out.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return fit;
}

PressSelection select_press_states(const MatrixView& x, const MatrixView& y, Index max_states,
                                   const PressOptions& options, const FitContext& context) {
  if (max_states < 1) throw InvalidArgument("the largest number of PRESS states must be >= 1");
  const auto started = std::chrono::steady_clock::now();
  PressSelection selection;
  PressOptions per_state = options;
  CvTable aic{
      {"n_states"}, Matrix(max_states, 1), Vector(max_states), Vector::Zero(max_states), "aic", 0};
  CvTable dof = aic;
  dof.loss = "degrees_of_freedom";
  for (Index j = 1; j <= max_states; ++j) {
    per_state.n_states = j;
    // Each J's starts are a stage of their own, named by the J.
    PrefixedProgress progress(
        context.progress, "J = " + std::to_string(j) + " of " + std::to_string(max_states) + ", ");
    selection.fits.push_back(fit_press(x, y, per_state, context.reporting_to(progress)));
    aic.candidates(j - 1, 0) = static_cast<double>(j);
    aic.mean_loss(j - 1) = selection.fits.back().aic;
    dof.mean_loss(j - 1) = selection.fits.back().degrees_of_freedom;
  }
  dof.candidates = aic.candidates;
  aic.best = best_candidate(aic.mean_loss);
  dof.best = aic.best;
  selection.best = aic.best;
  FitReport& report = selection.fits[static_cast<std::size_t>(selection.best)].report;
  report.cross_validation = aic;
  report.parameter_choice.clear();
  report.auxiliary_cross_validation["degrees_of_freedom"] = dof;
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (selection.best + 1 == max_states && max_states > 1) {
    report.warnings.push_back("the AIC choice J = " + std::to_string(max_states) +
                              " is the largest J tried: larger J may do better");
  }
  return selection;
}

PressFit fit_press_regression(const MatrixView& x, const MatrixView& y,
                              const PressRegressionOptions& options, const FitContext& context) {
  press_option_table().validate(options);
  if (options.max_states == 0) return fit_press(x, y, options.press, context);
  PressSelection selection = select_press_states(x, y, options.max_states, options.press, context);
  return std::move(selection.fits[static_cast<std::size_t>(selection.best)]);
}

PressStateSummary press_state_summary(const ConditionalMixture& model) {
  const PressGate& gate = press_gate_of(model);
  const Standardizer& x_scaling = model.x_scaling();
  // B on standardised inputs z = (x − m)/s in the user's units: β_d = b_d / s_d and
  // β_0 = b_0 − Σ_d b_d m_d / s_d.
  Matrix coefficients = gate.coefficients();
  const Index d = coefficients.rows() - 1;
  coefficients.bottomRows(d) =
      x_scaling.scale().cwiseInverse().asDiagonal() * coefficients.bottomRows(d);
  coefficients.row(0) -= x_scaling.mean().transpose() * coefficients.bottomRows(d);
  // ȳ⁽ʲ⁾ = Σ_k A_jk v_k: the mean of the state's kernel estimate.
  const Vector outputs = model.centers().row(0).head(gate.n_outputs()).transpose();
  const Vector means = gate.output_weights() * outputs;
  return {std::move(coefficients),
          (means.array() * model.y_scaling().scale()(0) + model.y_scaling().mean()(0)).matrix(),
          gate.state_sizes()};
}

Vector press_predict(const ConditionalMixture& model, const MatrixView& x) {
  press_gate_of(model);
  return model.mean(x).row(0).transpose();
}

}  // namespace cdens

#include "cdens/conditional/lsce.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/lscde_system.hpp"
#include "conditional/projected_gate.hpp"
#include "conditional/reduced_cde_dimension.hpp"
#include "conditional/sufficient_reduction.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "methods/option_tables.hpp"
#include "model/tied_outputs.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {
namespace {

struct MethodName {
  ReducedCdeMethod method;
  const char* name;
};
constexpr MethodName kMethodNames[] = {{ReducedCdeMethod::lsce, "lsce"},
                                       {ReducedCdeMethod::lsce_ekde, "lsce-ekde"},
                                       {ReducedCdeMethod::lsmi_lscde, "lsmi-lscde"},
                                       {ReducedCdeMethod::lsmi_ekde, "lsmi-ekde"}};

bool uses_smi(ReducedCdeMethod method) {
  return method == ReducedCdeMethod::lsmi_lscde || method == ReducedCdeMethod::lsmi_ekde;
}

/// The model is the LSCDE inside the search (§2.6), not an estimator fitted on z afterwards.
bool uses_search_model(ReducedCdeMethod method, const LsceOptions& options) {
  return method == ReducedCdeMethod::lsce && options.final_model == LsceFinalModel::paper;
}

bool uses_epsilon_kde(ReducedCdeMethod method) {
  return method == ReducedCdeMethod::lsce_ekde || method == ReducedCdeMethod::lsmi_ekde;
}

/// The ε-KDE on z chooses its bandwidths by leave-one-out over all pairs, on one process
/// (docs/distributed.md); the search for W and the LSCDE on z run on many.
void require_distributed_estimator(ReducedCdeMethod method, const FitContext& context) {
  if (context.communicator.size() > 1 && uses_epsilon_kde(method)) {
    throw InvalidArgument(to_string(method) +
                          " runs on one process only: its e-KDE on z = Wx chooses its bandwidths "
                          "by leave-one-out over all pairs (docs/distributed.md); lsce and "
                          "lsmi-lscde run on many");
  }
}

/// The rows of W along which z = W x̄ varies over the training pairs. A constant z dimension
/// arises only where W = I (d_z = d_x) and x̄ has a column constant over these pairs, which
/// happens in a fold of the d_z cross-validation (a rare category, a rain gauge reading 0 in
/// every month of the fold): it carries no information on these pairs and the estimator on z,
/// which standardises z, could not use it. x_standard is this rank's pairs; the range of z is
/// that of every rank's (a collective call).
Matrix rows_varying_over(const Matrix& w, const Matrix& x_standard,
                         const Communicator& communicator) {
  const Matrix z = w * x_standard;
  // The largest z and the largest −z of every row, over every rank's pairs.
  Vector extremes = Vector::Constant(2 * z.rows(), -std::numeric_limits<double>::infinity());
  if (z.cols() > 0) {
    extremes.head(z.rows()) = z.rowwise().maxCoeff();
    extremes.tail(z.rows()) = -z.rowwise().minCoeff();
  }
  communicator.allreduce_max(extremes.data(), static_cast<std::size_t>(extremes.size()));
  std::vector<Index> varying;
  for (Index r = 0; r < z.rows(); ++r) {
    if (extremes(r) > -extremes(z.rows() + r)) varying.push_back(r);
  }
  if (varying.empty()) throw DataError("every projected input z = W x is constant");
  Matrix kept(static_cast<Index>(varying.size()), w.cols());
  for (std::size_t k = 0; k < varying.size(); ++k) {
    kept.row(static_cast<Index>(k)) = w.row(varying[k]);
  }
  return kept;
}

/// The LSCDE that LSCE fitted on z = W x̄ (§2.6): α̂ at the chosen σ, λ, rounded as eq. (10).
/// x and y are this rank's pairs; their sums are added over the ranks (a collective call).
ConditionalMixture lsce_model(const Standardizer& x_scaling, const Standardizer& y_scaling,
                              const Matrix& x, const Matrix& y, const ReductionResult& result,
                              const Communicator& communicator) {
  const Matrix& w = result.best.w;
  const Matrix z = w * x;
  const LscdeBasis basis{w * result.centers_x, result.centers_y, result.best.sigma};
  LscdeSums sums = lscde_pair_sums(z, y, basis);
  allreduce_sums(sums, communicator);
  const LscdeSystem system = lscde_system(sums, output_overlap(basis), basis);
  const Vector alpha = LscdeLambdaPath(system).coefficients({result.best.lambda}).col(0);
  return project_inputs(
      x_scaling, w, make_lscde_mixture(Standardizer::identity(w.rows()), y_scaling, basis, alpha));
}

}  // namespace

std::string to_string(LsceFinalModel model) {
  return model == LsceFinalModel::refit ? "refit" : "paper";
}

std::string to_string(ReducedCdeMethod method) {
  for (const auto& entry : kMethodNames) {
    if (entry.method == method) return entry.name;
  }
  throw InvalidArgument("unknown reduced CDE method");
}

ReducedCdeMethod parse_reduced_cde_method(const std::string& name) {
  for (const auto& entry : kMethodNames) {
    if (name == entry.name) return entry.method;
  }
  throw InvalidArgument("unknown method '" + name +
                        "' (known: lsce, lsce-ekde, lsmi-lscde, lsmi-ekde)");
}

LsceFit fit_at_dimension(const MatrixView& x, const MatrixView& y, const Standardizer& x_scaling,
                         const Standardizer& y_scaling, ReducedCdeMethod method,
                         const LsceOptions& options, const FitContext& context) {
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    require_training_shard(x, y, communicator);
    require_distributed_estimator(method, context);
  });
  const Matrix x_standard = x_scaling.transform(x);
  const Matrix y_standard = y_scaling.transform(y);
  const ReductionCriterion criterion =
      uses_smi(method) ? ReductionCriterion::smi : ReductionCriterion::sce;
  ReductionResult result =
      reduce_dimension(criterion, x_standard, y_standard, options.reduction, context);
  // The paper's LSCE model is the LSCDE inside the search, on z = W x̄ as it is; the estimators
  // fitted afterwards standardise z again and are fitted along its varying dimensions only.
  const bool search_model = uses_search_model(method, options);
  const Matrix w =
      search_model ? result.best.w : rows_varying_over(result.best.w, x_standard, communicator);

  FitReport report;
  report.method = to_string(method);
  report.hyperparameters["n_components"] = static_cast<double>(w.rows());
  std::optional<ConditionalMixture> model;
  if (search_model) {
    model = lsce_model(x_scaling, y_scaling, x_standard, y_standard, result, communicator);
    report.hyperparameters["sigma"] = result.best.sigma;
    report.hyperparameters["regularization"] = result.best.lambda;
    report.cross_validation = result.best.cross_validation;
    // The ties of the outputs need all of them at once (a sort); on many ranks the warning is
    // not given, as for LSCDE.
    if (communicator.size() == 1) {
      if (auto spikes = spike_warning(y_standard, result.best.sigma, options.reduction.sigma,
                                      context.pair_names(x.rows(), y.rows()).second)) {
        report.warnings.push_back(std::move(*spikes));
      }
    }
  } else {
    report.hyperparameters["reduction_sigma"] = result.best.sigma;
    report.hyperparameters["reduction_regularization"] = result.best.lambda;
    report.auxiliary_cross_validation["reduction"] = result.best.cross_validation;
    const Matrix z = w * x_standard;
    FitReport second;
    // The estimator's own stages, named as the fit on z (without the names of the columns of x).
    PrefixedProgress on_z(context.progress, "estimator on z = Wx, ");
    const FitContext z_context = context.for_derived_columns(on_z);
    if (uses_epsilon_kde(method)) {
      EkdeOptions ekde = options.epsilon_kde;
      ekde.seed = options.reduction.seed;
      ConditionalFit fit = fit_ekde(z, y, ekde, z_context);
      model = project_inputs(x_scaling, w, fit.model);
      second = std::move(fit.report);
    } else {
      // lsmi-lscde, and lsce's default final model: LSCDE with KL cross-validation on z.
      LscdeOptions lscde;
      lscde.sigma = options.reduction.sigma;
      lscde.regularization = options.reduction.regularization;
      lscde.n_centers = options.reduction.n_centers;
      lscde.folds = options.reduction.folds;
      lscde.cv_loss = options.lscde_cv_loss;
      lscde.seed = options.reduction.seed;
      ConditionalFit fit = fit_lscde(z, y, lscde, z_context);
      model = project_inputs(x_scaling, w, fit.model);
      second = std::move(fit.report);
    }
    for (const auto& [name, value] : second.hyperparameters) report.hyperparameters[name] = value;
    report.cross_validation = std::move(second.cross_validation);
    report.warnings = std::move(second.warnings);
  }
  report.statistics["n_train"] = static_cast<double>(communicator.sum_counts(x.cols()));
  report.statistics["n_basis"] = static_cast<double>(result.centers_x.cols());
  report.statistics["restarts"] = static_cast<double>(result.runs.size());
  report.statistics["updates"] = static_cast<double>(result.best.updates);
  LsceFit fit{std::move(*model), std::move(report), w, {}};
  for (const auto& run : result.runs) fit.traces.push_back(run.trace);
  return fit;
}

CvLoss dimension_loss(ReducedCdeMethod method, const LsceOptions& options) {
  const bool refit = method == ReducedCdeMethod::lsce && !uses_search_model(method, options);
  return refit ? options.dz_loss : CvLoss::sq;
}

/// The mean of `loss` over every rank's held-out pairs (this rank's x, y; `count` of all ranks):
/// each rank adds its pairs' terms (a collective call).
double held_out_mean(CvLoss loss, const ConditionalMixture& model, const Matrix& x, const Matrix& y,
                     Index count, const Communicator& communicator) {
  double sum = x.cols() > 0 ? held_out_pair_losses(loss, model, x, y).sum() : 0.0;
  communicator.allreduce_sum(&sum, 1);
  return sum / static_cast<double>(count);
}

DimensionTables cross_validate_dimension(const MatrixView& x, const MatrixView& y,
                                         ReducedCdeMethod method, const LsceOptions& options,
                                         const FitContext& context) {
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    require_training_shard(x, y, communicator);
    require_distributed_estimator(method, context);
  });
  const Index dx = x.rows();
  const int fold_count = options.reduction.folds;
  const std::vector<std::int32_t> fold_of = draw_sharded_fold_labels(
      x.cols(), fold_count, options.reduction.seed, random_stream::kOuterFolds, communicator);
  // Every fold is standardised as the whole sample is: a column that is constant within a
  // fold (a rare category, a rain gauge that reads 0 in most months) stays usable.
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  const Standardizer x_scaling = Standardizer::fit(x, communicator, "x", x_names);
  const Standardizer y_scaling = Standardizer::fit(y, communicator, "y", y_names);
  // One set of fold fits, scored by both losses (evaluating a fit costs little beside it).
  Matrix fold_sq(dx, fold_count);
  Matrix fold_kl(dx, fold_count);
  context.progress.begin("d_z cross-validation", dx * fold_count);
  for (int k = 0; k < fold_count; ++k) {
    std::vector<Index> training;
    std::vector<Index> held_out;
    for (std::size_t i = 0; i < fold_of.size(); ++i) {
      (fold_of[i] == k ? held_out : training).push_back(static_cast<Index>(i));
    }
    const Matrix x_training = gather_samples(x, training), y_training = gather_samples(y, training);
    const Matrix x_held_out = gather_samples(x, held_out);
    const Matrix y_held_out = gather_samples(y, held_out);
    const Index held_out_count = communicator.sum_counts(x_held_out.cols());
    for (Index dz = 1; dz <= dx; ++dz) {
      LsceOptions fold_options = options;
      fold_options.reduction.n_components = dz;
      const LsceFit fit =
          fit_at_dimension(x_training, y_training, x_scaling, y_scaling, method, fold_options,
                           FitContext{communicator}.with_threads(context.threads));
      fold_sq(dz - 1, k) = held_out_mean(CvLoss::sq, fit.model, x_held_out, y_held_out,
                                         held_out_count, communicator);
      fold_kl(dz - 1, k) = held_out_mean(CvLoss::kl, fit.model, x_held_out, y_held_out,
                                         held_out_count, communicator);
      context.progress.advance();
    }
  }
  context.progress.end();
  Matrix candidates(dx, 1);
  for (Index dz = 1; dz <= dx; ++dz) candidates(dz - 1, 0) = static_cast<double>(dz);
  CvTable sq = make_cv_table({"n_components"}, candidates, fold_sq, to_string(CvLoss::sq));
  CvTable kl = make_cv_table({"n_components"}, candidates, fold_kl, to_string(CvLoss::kl));
  DimensionTables tables;
  if (dimension_loss(method, options) == CvLoss::kl) {
    tables = {std::move(kl), std::move(sq)};
  } else {
    tables = {std::move(sq), std::move(kl)};
  }
  if (tables.chosen.best < 0) throw DataError("cross-validation of d_z produced no finite loss");
  return tables;
}

LsceFit fit_lsce(const MatrixView& x, const MatrixView& y, ReducedCdeMethod method,
                 const LsceOptions& options, const FitContext& context) {
  const auto started = std::chrono::steady_clock::now();
  // Each rank passes its own pairs; the standardisation, centres and folds are those of every
  // rank's, so any number of ranks fits the same model (docs/distributed.md).
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    lsce_option_table(method).validate(options);
    require_training_shard(x, y, communicator);
    require_distributed_estimator(method, context);
    if (options.reduction.n_components > x.rows()) {
      throw InvalidArgument("n_components (d_z) must lie in 1 … d_x = " + std::to_string(x.rows()) +
                            " (or 0 to choose it by cross-validation), got " +
                            std::to_string(options.reduction.n_components));
    }
  });
  require_equal_on_every_rank(communicator,
                              {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                              "the dimensions of x and y");
  std::optional<DimensionTables> dimension_tables;
  LsceOptions chosen = options;
  if (options.reduction.n_components == 0) {
    dimension_tables = cross_validate_dimension(x, y, method, options, context);
    const CvTable& table = dimension_tables->chosen;
    chosen.reduction.n_components = static_cast<Index>(table.candidates(table.best, 0));
  }
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  LsceFit fit =
      fit_at_dimension(x, y, Standardizer::fit(x, communicator, "x", x_names),
                       Standardizer::fit(y, communicator, "y", y_names), method, chosen, context);
  if (dimension_tables) {
    auto& tables = fit.report.auxiliary_cross_validation;
    tables["n_components_" + dimension_tables->other.loss] = std::move(dimension_tables->other);
    tables["n_components"] = std::move(dimension_tables->chosen);
  }
  fit.report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return fit;
}

}  // namespace cdens

#include "cdens/conditional/lsce.hpp"

#include <chrono>
#include <optional>

#include "cdens/conditional/lscde_gate.hpp"
#include "cdens/conditional/lscde_system.hpp"
#include "cdens/conditional/projected_gate.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/validate.hpp"

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

bool uses_epsilon_kde(ReducedCdeMethod method) {
  return method == ReducedCdeMethod::lsce_ekde || method == ReducedCdeMethod::lsmi_ekde;
}

/// The LSCDE that LSCE fitted on z = W x̄ (§2.6): α̂ at the chosen σ, λ, rounded as eq. (10).
ConditionalMixture lsce_model(const Standardizer& x_scaling, const Standardizer& y_scaling,
                              const Matrix& x, const Matrix& y, const ReductionResult& result) {
  const Matrix& w = result.best.w;
  const Matrix z = w * x;
  const LscdeBasis basis{gather_samples(z, result.draws.centers),
                         gather_samples(y, result.draws.centers), result.best.sigma};
  const LscdeSystem system =
      lscde_system(lscde_pair_sums(z, y, basis), output_overlap(basis), basis);
  const Vector alpha = LscdeLambdaPath(system).coefficients({result.best.lambda}).col(0);
  return project_inputs(
      x_scaling, w, make_lscde_mixture(Standardizer::identity(w.rows()), y_scaling, basis, alpha));
}

}  // namespace

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

ReducedCdeFit fit_reduced_cde(const MatrixView& x, const MatrixView& y, ReducedCdeMethod method,
                              const ReducedCdeOptions& options, const FitContext& context) {
  const auto started = std::chrono::steady_clock::now();
  require_training_pairs(x, y);
  if (context.communicator.size() > 1) {
    throw InvalidArgument("LSCE and LSMI run on a single process");
  }
  const Standardizer x_scaling = Standardizer::fit(x, "x");
  const Standardizer y_scaling = Standardizer::fit(y, "y");
  const Matrix x_standard = x_scaling.transform(x);
  const Matrix y_standard = y_scaling.transform(y);
  const ReductionCriterion criterion =
      uses_smi(method) ? ReductionCriterion::smi : ReductionCriterion::sce;
  ReductionResult result =
      reduce_dimension(criterion, x_standard, y_standard, options.reduction, context);
  const Matrix& w = result.best.w;

  FitReport report;
  report.method = to_string(method);
  report.hyperparameters["d_z"] = static_cast<double>(result.dz);
  std::optional<ConditionalMixture> model;
  if (method == ReducedCdeMethod::lsce) {
    model = lsce_model(x_scaling, y_scaling, x_standard, y_standard, result);
    report.hyperparameters["sigma"] = result.best.sigma;
    report.hyperparameters["lambda"] = result.best.lambda;
    report.cross_validation = result.best.cross_validation;
  } else {
    report.hyperparameters["reduction_sigma"] = result.best.sigma;
    report.hyperparameters["reduction_lambda"] = result.best.lambda;
    report.auxiliary_cross_validation["reduction"] = result.best.cross_validation;
    const Matrix z = w * x_standard;
    FitReport second;
    if (uses_epsilon_kde(method)) {
      EpsilonKdeOptions ekde = options.epsilon_kde;
      ekde.seed = options.reduction.seed;
      ekde.threads = options.reduction.threads;
      KernelCdeFit fit = fit_epsilon_kde(z, y, ekde, context);
      model = project_inputs(x_scaling, w, fit.model);
      second = std::move(fit.report);
    } else {
      LscdeOptions lscde;
      lscde.sigmas = options.reduction.sigmas;
      lscde.lambdas = options.reduction.lambdas;
      lscde.n_centers = options.reduction.n_centers;
      lscde.folds = options.reduction.folds;
      lscde.cv_loss = options.lscde_cv_loss;
      lscde.seed = options.reduction.seed;
      lscde.threads = options.reduction.threads;
      LscdeFit fit = fit_lscde(z, y, lscde, context);
      model = project_inputs(x_scaling, w, fit.model);
      second = std::move(fit.report);
    }
    for (const auto& [name, value] : second.hyperparameters) report.hyperparameters[name] = value;
    report.cross_validation = std::move(second.cross_validation);
    report.warnings = std::move(second.warnings);
  }
  report.auxiliary_cross_validation["d_z"] = result.dimension_table;
  report.statistics["n_train"] = static_cast<double>(x.cols());
  report.statistics["n_basis"] = static_cast<double>(result.draws.centers.size());
  report.statistics["restarts"] = static_cast<double>(result.runs.size());
  report.statistics["updates"] = static_cast<double>(result.best.updates);
  report.fit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  ReducedCdeFit fit{std::move(*model), std::move(report), w, {}};
  for (const auto& run : result.runs) fit.traces.push_back(run.trace);
  return fit;
}

}  // namespace cdens

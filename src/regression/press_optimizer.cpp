#include "press_optimizer.hpp"

#include <nlopt.h>

#include <cmath>
#include <exception>
#include <limits>
#include <memory>

#include "cdens/core/error.hpp"

namespace cdens::detail {
namespace {

// Stands in for +∞ (a LOOCV with s_ii ≥ 1): L-BFGS's line search then backtracks.
constexpr double kLargeValue = 1e300;

struct RunState {
  const PressObjective& objective;
  const PressParametrization& parametrization;
  const PressHoldoutScore& score;
  const PressOptimizerSettings& settings;
  nlopt_opt optimizer;
  PressOptimization result;
  int since_improvement = 0;
  std::exception_ptr failure;
};

double evaluate(unsigned size, const double* theta, double* gradient, void* data) {
  auto& state = *static_cast<RunState*>(data);
  try {
    const Eigen::Map<const Vector> parameters(theta, size);
    const Matrix coefficients = state.parametrization.coefficients(parameters);
    Matrix coefficient_gradient;
    const PressEvaluation evaluation =
        state.objective.evaluate(coefficients, gradient ? &coefficient_gradient : nullptr);
    const double value = evaluation.value + state.parametrization.penalty(parameters);
    ++state.result.evaluations;
    if (!std::isfinite(value)) {
      if (gradient) Eigen::Map<Vector>(gradient, size).setZero();
      return kLargeValue;
    }
    if (gradient) {
      Eigen::Map<Vector>(gradient, size) = state.parametrization.gradient(coefficient_gradient);
    }
    const double score = state.score(coefficients, evaluation, value);
    if (state.result.evaluations == 1 || score < state.result.score) {
      state.result.theta = parameters;
      state.result.score = score;
      state.result.value = value;
      state.result.best_evaluation = state.result.evaluations;
      state.since_improvement = 0;
    } else if (++state.since_improvement >= state.settings.patience) {
      state.result.stopped_early = true;
      nlopt_force_stop(state.optimizer);
    }
    return value;
  } catch (...) {
    state.failure = std::current_exception();
    nlopt_force_stop(state.optimizer);
    return kLargeValue;
  }
}

}  // namespace

PressOptimization minimize_press(const PressObjective& objective,
                                 const PressParametrization& parametrization, Vector theta0,
                                 const PressHoldoutScore& score,
                                 const PressOptimizerSettings& settings) {
  const auto size = static_cast<unsigned>(parametrization.size());
  if (theta0.size() != parametrization.size()) {
    throw InvalidArgument("PRESS optimiser: starting point of the wrong size");
  }
  std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> optimizer(
      nlopt_create(NLOPT_LD_LBFGS, size), &nlopt_destroy);
  if (!optimizer) throw Error("NLopt could not create an L-BFGS optimiser");
  const std::vector<double> lower = parametrization.lower_bounds();
  nlopt_set_lower_bounds(optimizer.get(), lower.data());
  nlopt_set_maxeval(optimizer.get(), settings.max_evaluations);
  nlopt_set_ftol_rel(optimizer.get(), settings.relative_tolerance);

  RunState state{objective, parametrization, score, settings, optimizer.get(), {}, 0, nullptr};
  nlopt_set_min_objective(optimizer.get(), &evaluate, &state);
  std::vector<double> theta(theta0.data(), theta0.data() + theta0.size());
  // Bounded parts start inside their bounds.
  for (std::size_t i = 0; i < theta.size(); ++i) theta[i] = std::max(theta[i], lower[i]);
  double value = 0.0;
  state.result.status = nlopt_optimize(optimizer.get(), theta.data(), &value);
  if (state.failure) std::rethrow_exception(state.failure);
  if (state.result.evaluations == 0) throw Error("NLopt stopped before evaluating the objective");
  // NLopt's own failures (roundoff-limited line searches and the like) leave the best point seen
  // so far, which is what early stopping keeps anyway.
  return state.result;
}

}  // namespace cdens::detail

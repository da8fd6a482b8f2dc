#include "regression/press_optimizer.hpp"

#include <nlopt.h>

#include <cmath>
#include <exception>
#include <limits>
#include <memory>

#include "cdens/core/types.hpp"
#include "regression/press_smoother.hpp"

namespace cdens::detail {
namespace {

// Stands in for +∞ (a LOOCV with s_ii ≥ 1): L-BFGS's line search then backtracks.
constexpr double kLargeValue = 1e300;

// Adam's moment decay rates and denominator guard (Kingma & Ba 2015, their defaults).
constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.999;
constexpr double kAdamEpsilon = 1e-8;

/// Evaluates the objective for an optimiser and keeps the early-stopping record: the θ with the
/// best score so far and the evaluations since it was found.
class Tracker {
 public:
  Tracker(const PressObjective& objective, const PressParametrization& parametrization,
          const PressHoldoutScore& score, const PressOptimizerSettings& settings)
      : objective_(objective),
        parametrization_(parametrization),
        score_(score),
        settings_(settings) {}

  /// Objective value at θ (kLargeValue where it is infinite) and its gradient into `gradient`
  /// (size θ) when non-null.
  double evaluate(const VectorView& theta, double* gradient) {
    const Matrix coefficients = parametrization_.coefficients(theta);
    Matrix coefficient_gradient;
    const PressEvaluation evaluation =
        objective_.evaluate(coefficients, gradient ? &coefficient_gradient : nullptr);
    const double value = evaluation.value + parametrization_.penalty(theta);
    ++result_.evaluations;
    if (!std::isfinite(value)) {
      if (gradient) Eigen::Map<Vector>(gradient, theta.size()).setZero();
      return kLargeValue;
    }
    if (gradient) {
      Eigen::Map<Vector>(gradient, theta.size()) = parametrization_.gradient(coefficient_gradient);
    }
    const double score = score_(coefficients, evaluation, value);
    if (result_.evaluations == 1 || score < result_.score) {
      result_.theta = theta;
      result_.score = score;
      result_.value = value;
      result_.best_evaluation = result_.evaluations;
      since_improvement_ = 0;
    } else if (++since_improvement_ >= settings_.patience) {
      result_.stopped_early = true;
    }
    return value;
  }

  bool should_stop() const {
    return result_.stopped_early || result_.evaluations >= settings_.max_evaluations;
  }
  PressOptimization& result() { return result_; }

 private:
  const PressObjective& objective_;
  const PressParametrization& parametrization_;
  const PressHoldoutScore& score_;
  const PressOptimizerSettings& settings_;
  PressOptimization result_;
  int since_improvement_ = 0;
};

struct NloptState {
  Tracker& tracker;
  nlopt_opt optimizer;
  std::exception_ptr failure;
};

double nlopt_objective(unsigned size, const double* theta, double* gradient, void* data) {
  auto& state = *static_cast<NloptState*>(data);
  try {
    const double value = state.tracker.evaluate(Eigen::Map<const Vector>(theta, size), gradient);
    if (state.tracker.result().stopped_early) nlopt_force_stop(state.optimizer);
    return value;
  } catch (...) {
    state.failure = std::current_exception();
    nlopt_force_stop(state.optimizer);
    return kLargeValue;
  }
}

void run_lbfgs(Tracker& tracker, const std::vector<double>& lower, Vector& theta,
               const PressOptimizerSettings& settings) {
  const auto size = static_cast<unsigned>(theta.size());
  std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> optimizer(
      nlopt_create(NLOPT_LD_LBFGS, size), &nlopt_destroy);
  if (!optimizer) throw Error("NLopt could not create an L-BFGS optimiser");
  nlopt_set_lower_bounds(optimizer.get(), lower.data());
  nlopt_set_maxeval(optimizer.get(), settings.max_evaluations);
  nlopt_set_ftol_rel(optimizer.get(), settings.relative_tolerance);
  NloptState state{tracker, optimizer.get(), nullptr};
  nlopt_set_min_objective(optimizer.get(), &nlopt_objective, &state);
  double value = 0.0;
  tracker.result().status = nlopt_optimize(optimizer.get(), theta.data(), &value);
  if (state.failure) std::rethrow_exception(state.failure);
  // NLopt's own failures (a roundoff-limited line search and the like) leave the best point
  // seen so far, which is what early stopping keeps anyway.
}

void run_adam(Tracker& tracker, const std::vector<double>& lower, Vector& theta,
              const PressOptimizerSettings& settings) {
  const Eigen::Map<const Vector> bounds(lower.data(), static_cast<Index>(lower.size()));
  Vector gradient(theta.size());
  Vector first = Vector::Zero(theta.size());
  Vector second = Vector::Zero(theta.size());
  double decay1 = 1.0;
  double decay2 = 1.0;
  while (true) {
    tracker.evaluate(theta, gradient.data());
    if (tracker.should_stop()) break;
    first = kAdamBeta1 * first + (1.0 - kAdamBeta1) * gradient;
    second = kAdamBeta2 * second + (1.0 - kAdamBeta2) * gradient.cwiseAbs2();
    decay1 *= kAdamBeta1;
    decay2 *= kAdamBeta2;
    const Eigen::ArrayXd step = (first.array() / (1.0 - decay1)) /
                                ((second.array() / (1.0 - decay2)).sqrt() + kAdamEpsilon);
    // Projection onto θ ≥ lower keeps the LASSO parts non-negative (projected gradient).
    theta = (theta.array() - settings.learning_rate * step).max(bounds.array()).matrix();
  }
  tracker.result().status = tracker.result().stopped_early ? 2 : 1;
}

}  // namespace

PressOptimization minimize_press(const PressObjective& objective,
                                 const PressParametrization& parametrization, Vector theta0,
                                 const PressHoldoutScore& score,
                                 const PressOptimizerSettings& settings) {
  if (theta0.size() != parametrization.size()) {
    throw InvalidArgument("PRESS optimiser: starting point of the wrong size");
  }
  const std::vector<double> lower = parametrization.lower_bounds();
  // Bounded parts start inside their bounds.
  for (Index i = 0; i < theta0.size(); ++i) {
    theta0(i) = std::max(theta0(i), lower[static_cast<std::size_t>(i)]);
  }
  Tracker tracker(objective, parametrization, score, settings);
  if (settings.method == PressOptimizer::lbfgs) {
    run_lbfgs(tracker, lower, theta0, settings);
  } else {
    run_adam(tracker, lower, theta0, settings);
  }
  if (tracker.result().evaluations == 0) {
    throw Error("the optimiser stopped before evaluating the objective");
  }
  return tracker.result();
}

}  // namespace cdens::detail

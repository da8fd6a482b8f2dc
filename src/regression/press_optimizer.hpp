#pragma once
// Minimisation of a PRESS criterion over θ with the paper's early stopping (§5): after every
// evaluation the hold-out MSE is computed; the run stops once it has not improved for `patience`
// evaluations, and the best θ seen is kept. Two optimisers: NLopt's L-BFGS (bounds for the LASSO
// split) and Adam (Kingma & Ba 2015; projected onto the bounds), whose small steps follow the
// gradient path that early stopping is meant to cut short.

#include <functional>

#include "cdens/core/types.hpp"
#include "regression/press_parameters.hpp"
#include "regression/press_smoother.hpp"

namespace cdens::detail {

/// PressOptions' optimiser settings; no defaults of its own, so that PressOptions' are the only
/// ones.
struct PressOptimizerSettings {
  PressOptimizer method;
  double learning_rate;
  int patience;
  int max_evaluations;
  double relative_tolerance;
};

/// The score that decides which θ is kept, from coefficients B, the training evaluation (with
/// its state means ȳ) and the full objective value: the hold-out MSE, or without a hold-out set
/// the objective value itself.
using PressHoldoutScore = std::function<double(
    const Matrix& coefficients, const PressEvaluation& training, double objective_value)>;

struct PressOptimization {
  Vector theta;             ///< the best θ seen
  double score = 0.0;       ///< its hold-out score
  double value = 0.0;       ///< its training objective (criterion + penalties)
  int evaluations = 0;      ///< objective evaluations made
  int best_evaluation = 0;  ///< the evaluation that found θ (1-based)
  bool stopped_early = false;
  /// L-BFGS: NLopt's result code (positive: converged or a limit reached; negative: a failure
  /// such as a roundoff-limited line search, after which the best θ seen is still valid).
  /// Adam: 1 when the evaluation limit ended the run, 2 when early stopping did.
  int status = 0;
};

/// Minimises objective(B(θ)) + penalty(θ) from θ0.
PressOptimization minimize_press(const PressObjective& objective,
                                 const PressParametrization& parametrization, Vector theta0,
                                 const PressHoldoutScore& score,
                                 const PressOptimizerSettings& settings);

}  // namespace cdens::detail

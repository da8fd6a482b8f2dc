#pragma once
// Predictive state smoothing, PRESS (Goerg 2017): regression through J predictive states with
// logistic state weights w(x) = softmax(Bᵀ (1, x)), fitted by minimising a closed-form criterion
// (in-sample, leave-one-out or generalised cross-validation MSE) with an optional smoothness
// penalty and LASSO, and a predictive distribution p(y|x) = Σ_j w_j(x) p(y|s_j). See
// docs/methods/press.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// The training criterion of PRESS: in-sample MSE (eqs. 28, 30), closed-form leave-one-out MSE
/// (eqs. 31–33) or generalised cross-validation MSE (eq. 34). All are means over the samples.
enum class PressCriterion { mse, loocv, gcv };

std::string to_string(PressCriterion criterion);

/// How θ is optimised: Adam steps of a fixed learning rate (the gradient-descent path of the
/// paper's TensorFlow fit, which early stopping cuts short) or NLopt's L-BFGS (fast convergence
/// to a minimiser; with early stopping its long quasi-Newton steps make the kept iterate erratic).
enum class PressOptimizer { adam, lbfgs };

std::string to_string(PressOptimizer optimizer);

/// "adam" or "lbfgs"; InvalidArgument otherwise.
PressOptimizer parse_press_optimizer(const std::string& name);

/// "mse", "loocv" or "gcv"; InvalidArgument otherwise.
PressCriterion parse_press_criterion(const std::string& name);

/// Options of fit_press; defaults follow the paper's §5 where it states them.
struct PressOptions {
  /// J, the number of predictive states; 0 takes J = max(2, round(log N)), the paper's starting
  /// point (§4.3).
  Index n_states = 0;
  /// Training criterion; the paper tunes by GCV (§5).
  PressCriterion criterion = PressCriterion::gcv;
  /// μ of the smoothness penalty μ (ν_smooth − ν)² (eq. 36); 0 turns it off.
  double smoothness_weight = 0.0;
  /// ν_smooth of eq. (36), in [1, J]; used when μ > 0.
  double target_dof = 0.0;
  /// λ of the LASSO penalty λ‖θ_X‖₁ (eq. 38) on the coefficients of x; 0 turns it off. The
  /// criteria are MSEs of the standardised y, so λ and μ do not depend on the units of y.
  double lasso_weight = 0.0;
  /// Optimiser of θ: Adam (the paper's gradient-descent fit in TensorFlow, §5) or L-BFGS.
  PressOptimizer optimizer = PressOptimizer::adam;
  /// Adam's step size (standardised inputs and outputs).
  double learning_rate = 0.003;
  /// Fraction of the training data held out for early stopping (§5: a "true 80/20 hold-out
  /// split"); 0 trains on everything and keeps the best objective value instead.
  double holdout_fraction = 0.2;
  /// Stop once the hold-out MSE has not decreased for this many objective evaluations (§5: 500).
  int patience = 500;
  /// Upper limit of objective evaluations per start.
  int max_iter = 20000;
  /// L-BFGS also stops when the objective changes by less than this, relatively (not Adam).
  double tol = 1e-10;
  /// Random starts; the one with the smallest hold-out MSE is kept.
  int n_restarts = 5;
  /// Standard deviation of the random starting coefficients (standardised inputs).
  double init_scale = 1.0;
  /// Standardise x before fitting (docs/design.md); false keeps x as given, which allows constant
  /// columns (MNIST's empty border pixels) and puts LASSO on the raw scale.
  bool standardize = true;
  /// Run the objective's two products and the hold-out's on a single-precision copy of the
  /// design: half the memory traffic for large n·d (MNIST); the rest of the fit stays double.
  bool single_precision = false;
  /// Seed of the hold-out split and the starting points.
  std::uint64_t seed = 0;
};

/// A fitted PRESS model, the states of the training data and what the fit found. On many
/// processes the per-sample members (training_weights, fitted, smoother_diagonal, entropies)
/// are this rank's samples'; everything else is every rank's.
struct PressFit {
  /// The predictive distribution (eq. 25); its mean is the point prediction of eq. (20).
  ConditionalMixture model;
  FitReport report;
  /// B in the user's units of x ((d + 1) × J, row 0 the intercepts), states ordered by ȳ⁽ʲ⁾.
  Matrix coefficients;
  Vector state_means;             ///< ȳ⁽ʲ⁾ in the units of y, increasing (§4)
  Vector state_sizes;             ///< σ_j (eq. 17)
  double degrees_of_freedom = 0;  ///< ν̂ = tr S (eq. 35)
  Matrix training_weights;        ///< W of the training inputs, J × n
  Vector fitted;                  ///< ŷ of the training inputs (eq. 24)
  Vector smoother_diagonal;       ///< s_ii (eq. 33)
  Vector entropies;               ///< η_i (eq. 18), bits
  double training_mse = 0;        ///< in-sample MSE in the units of y
  double aic = 0;                 ///< N log MSE + 2 (J − 1)(d + 1) (eq. 37)
};

/// Fits logistic PRESS to inputs x (d × n) and outputs y (1 × n). With several ranks in
/// context.communicator each passes its own samples (any number, even none) and every rank gets
/// the model of all of them (docs/distributed.md).
PressFit fit_press(const MatrixView& x, const MatrixView& y, const PressOptions& options = {},
                   const FitContext& context = {});

/// Fits J = 1 … max_states (options.n_states is ignored) and keeps the smallest AIC (§4.3).
struct PressSelection {
  std::vector<PressFit> fits;  ///< fits[J − 1] has J states
  Index best = 0;              ///< index into fits of the smallest AIC
};
PressSelection select_press_states(const MatrixView& x, const MatrixView& y, Index max_states,
                                   const PressOptions& options = {},
                                   const FitContext& context = {});

/// What `cdens regress fit` and PRESSRegressor fit: PRESS with J = press.n_states, or, when
/// max_states > 0, the fit of J = 1 … max_states with the smallest AIC (select_press_states).
struct PressRegressionOptions {
  PressOptions press;
  /// J_max of the AIC selection; 0 fits the one J of press.n_states.
  Index max_states = 0;
};

/// fit_press, or the smallest-AIC fit of select_press_states when options.max_states > 0.
/// InvalidArgument when both max_states and press.n_states are given.
PressFit fit_press_regression(const MatrixView& x, const MatrixView& y,
                              const PressRegressionOptions& options = {},
                              const FitContext& context = {});

/// What a PRESS model says about its states, read from the model alone (a loaded model file
/// gives the same as the fit).
struct PressStateSummary {
  Matrix coefficients;  ///< B in the user's units of x, (d + 1) × J, row 0 the intercepts
  Vector state_means;   ///< ȳ⁽ʲ⁾ in the units of y
  Vector state_sizes;   ///< σ_j
};
PressStateSummary press_state_summary(const ConditionalMixture& model);

/// The point prediction ŷ(x) = Σ_j w_j(x) ȳ⁽ʲ⁾ (eq. 20) of a PRESS model, in the units of y.
Vector press_predict(const ConditionalMixture& model, const MatrixView& x);

}  // namespace cdens

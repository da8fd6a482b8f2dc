#pragma once
// Sparse additive conditional density estimation, SA-CDE (Shiga, Tangkaratt, Sugiyama 2015,
// §2): an additive model Σ_d r̂_d(y, x_d) fitted by least squares with a non-negative group-lasso
// penalty that switches whole input features off, renormalised in y, with σ and λ chosen by
// K-fold cross-validation of the held-out negative log-likelihood. See docs/methods/sacde.md.

#include <cstdint>
#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

// How SA-CDE's non-negative group lasso (Shiga, Tangkaratt, Sugiyama 2015, eq. 16) is solved
// and when it stops; the solver is internal (src/conditional/nonnegative_group_lasso.hpp).

/// How eq. (16) is solved; both reach the same solution (the paper's fixed point).
enum class GroupLassoMethod {
  /// Proximal block-coordinate descent over the groups (solve_group_lasso_block_coordinate).
  block_coordinate,
  /// FISTA with restart on all coefficients at once (solve_group_lasso_dense), the paper's
  /// update (eqs. 17–19) accelerated.
  accelerated_gradient,
};

/// Stopping rule and bookkeeping of the solver.
struct GroupLassoOptions {
  GroupLassoMethod method = GroupLassoMethod::block_coordinate;
  /// Accelerated gradient (and each block of block-coordinate descent): stop when
  /// ‖α⁽ᵗ⁺¹⁾ − α⁽ᵗ⁾‖ ≤ tolerance · max(‖α⁽ᵗ⁺¹⁾‖, 1e−300), a relative change.
  double solver_tolerance = 1e-5;
  /// Block-coordinate descent: stop after the sweep whose KKT violation
  /// (group_lasso_kkt_violation, relative to λ) is at most this.
  double tol = 1e-3;
  /// Block-coordinate descent: FISTA iterations on one block per visit. A few suffice: the
  /// other blocks change the block's problem before the next visit anyway (3 against 100: 22 %
  /// less CPU time on SA-CDE's cross-validation, the same choices; docs/methods/sacde.md).
  int block_iterations = 3;
  /// Block-coordinate descent: every this many sweeps, a Newton step on the support or Anderson
  /// extrapolation of the last iterates (Bertrand & Massias 2021), taken only when it lowers J;
  /// 0 turns it off.
  int extrapolation_interval = 5;
  /// Safety cap on the iterations (sweeps for block-coordinate descent) of one solve.
  int solver_max_iterations = 20000;
  /// Record J after every accepted iterate (for tests; off in fits).
  bool record_objective = false;
};

/// The width grid of the SA-CDE paper's experiments (§3): twenty values from 10⁻² to 2, evenly
/// spaced in log, in standardised units. The default σ grid of ε-KDE and NW-CDE.
std::vector<double> sa_cde_width_grid();

/// How λ is taken from the cross-validation table.
enum class SaCdeLambdaRule {
  /// The (σ, λ) of the smallest mean held-out NLL: the paper's rule (§2.5).
  minimum,
  /// The σ of the minimum and the largest λ whose mean held-out NLL is within one standard
  /// error (over the folds) of the minimum (Hastie, Tibshirani & Friedman 2009, §7.10): the
  /// sparsest model the CV cannot tell from the best. Departs from the paper; see
  /// docs/methods/sacde.md.
  one_standard_error,
};

/// "min" (minimum) or "1se" (one_standard_error).
std::string to_string(SaCdeLambdaRule rule);

/// Options of fit_sacde; the defaults are the paper's (§3) except lambda_rule.
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct SacdeOptions {
  std::vector<double> sigma = sa_cde_width_grid();
  std::vector<double> regularization = sa_cde_width_grid();
  Index n_centers = 100;
  int folds = 5;
  SaCdeLambdaRule lambda_rule = SaCdeLambdaRule::one_standard_error;
  GroupLassoOptions solver;
  std::uint64_t seed = 0;
};

/// Fits SA-CDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n.
/// The report's feature_selection holds the kept features (‖α_d‖ > 0), ‖α_d‖₂ of every feature
/// and the regularisation path of the chosen σ on the whole training set (Figure 4); its
/// cross_validation the (σ, λ) table of held-out NLL in the user's units.
ConditionalFit fit_sacde(const MatrixView& x, const MatrixView& y, const SacdeOptions& options = {},
                         const FitContext& context = {});

}  // namespace cdens

#pragma once
// How SA-CDE's non-negative group lasso (Shiga, Tangkaratt, Sugiyama 2015, eq. 16) is solved
// and when it stops; the solver is internal (src/conditional/nonnegative_group_lasso.hpp).

namespace cdens {

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

}  // namespace cdens

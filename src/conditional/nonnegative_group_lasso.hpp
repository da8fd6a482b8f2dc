#pragma once
// The non-negative group lasso of SA-CDE (Shiga, Tangkaratt, Sugiyama 2015, eq. 16):
//
//   min_{α ≥ 0}  J(α) = ½ αᵀ H α − hᵀ α + λ Σ_d ‖α_d‖₂,
//
// with α cut into groups α_d of equal size, H symmetric positive semi-definite with non-negative
// entries. Solved by accelerated proximal gradient (FISTA, Beck & Teboulle 2009) with a restart
// whenever a step would increase J (the monotone variant): every accepted iterate lowers J, and
// the fixed point is the paper's proximal update (eqs. 18–19)
//
//   u = [α − (Hα − h)/L]_+,   α_d ← [1 − λ / (L ‖u_d‖)]_+ u_d,
//
// so the solution is the paper's; only the path to it is shorter. See docs/methods/sacde.md.

#include <vector>

#include "cdens/conditional/sacde.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// A solution and how it was reached.
struct GroupLassoSolution {
  Vector alpha;
  int iterations = 0;
  int restarts = 0;
  bool converged = false;
  std::vector<double> objective;  ///< J of the start, then of every accepted iterate
};

/// J(α) of eq. (16).
double group_lasso_objective(const MatrixView& h_matrix, const VectorView& h_vector,
                             Index group_size, double lambda, const VectorView& alpha);

/// An upper bound of the largest eigenvalue of a symmetric matrix with non-negative entries, the
/// Lipschitz constant L of ∇J₀: power iterations from a positive vector, stopped when the
/// Collatz–Wielandt bound max_i (Hv)_i / v_i (an upper bound for any positive v) is within 1 %
/// of the Rayleigh quotient (a lower bound), or after 100 iterations. 0 for the zero matrix.
/// `start` (positive, or empty for ones) is the first vector and receives the last: along a
/// regularisation path the previous problem's vector makes a few iterations enough.
double nonnegative_spectral_bound(const MatrixView& matrix, Vector& start);
double nonnegative_spectral_bound(const MatrixView& matrix);

/// The proximal step of eqs. (18)–(19) with step 1/L from the point `point` whose gradient of
/// J₀ is `gradient`.
Vector group_lasso_proximal_step(const VectorView& point, const VectorView& gradient,
                                 Index group_size, double lambda, double lipschitz);

/// FISTA with restart on the dense problem (H, h), from `start` (≥ 0), with step 1/L for
/// `lipschitz` = L ≥ the largest eigenvalue of H (nonnegative_spectral_bound when not given).
/// Products with H skip the zero coordinates of the iterate (non-negativity keeps many).
GroupLassoSolution solve_group_lasso_dense(const MatrixView& h_matrix, const VectorView& h_vector,
                                           Index group_size, double lambda, const Vector& start,
                                           const GroupLassoOptions& options = {});
GroupLassoSolution solve_group_lasso_dense(const MatrixView& h_matrix, const VectorView& h_vector,
                                           Index group_size, double lambda, const Vector& start,
                                           double lipschitz, const GroupLassoOptions& options);

/// Proximal block-coordinate descent (Tseng 2001; Qin, Scheinberg & Goldfarb 2013) from `start`:
/// the groups in turn, each minimising J over its own coefficients with the others fixed (FISTA
/// with restart on the block H_dd with step 1/L_d, L_d ≥ the largest eigenvalue of H_dd, at
/// most options.block_iterations iterations, or exactly zero when ‖[H_dd α_d − g_d]₊‖ ≤ λ,
/// g = Hα − h the maintained gradient). J never increases; a fixed point is a point where every
/// block is optimal given the others, i.e. the KKT point of eq. (16), the paper's fixed point.
/// Every options.extrapolation_interval sweeps one point is proposed and taken only when it
/// lowers J — so J still never increases and the fixed point is unchanged: a projected Newton
/// step on the support of α when it has at most 400 coordinates, else Anderson extrapolation of
/// the iterates of those sweeps (Bertrand & Massias, "Anderson acceleration of coordinate
/// descent", AISTATS 2021: the affine combination Σ c_k α⁽ᵏ⁾, Σ c_k = 1, that minimises
/// ‖Σ c_k (α⁽ᵏ⁾ − α⁽ᵏ⁻¹⁾)‖, projected on α ≥ 0 with the zero groups kept zero); see
/// docs/methods/sacde.md. Stops when the KKT violation of a sweep is at most
/// options.tol. `group_lipschitz` holds L_d per group (computed by
/// nonnegative_spectral_bound when empty).
GroupLassoSolution solve_group_lasso_block_coordinate(const MatrixView& h_matrix,
                                                      const VectorView& h_vector, Index group_size,
                                                      double lambda, const Vector& start,
                                                      const std::vector<double>& group_lipschitz,
                                                      const GroupLassoOptions& options = {});

/// The largest KKT violation of α for eq. (16), relative to λ: for a zero group
/// max(0, ‖[−g_d]_+‖ − λ) / λ, for a non-zero group the gradient condition
/// ‖g_d + λ α_d/‖α_d‖ − ν_d‖ / λ with ν_d = [g_d + λ α_d/‖α_d‖]_+ on the zero coordinates of α_d
/// and 0 elsewhere (the multipliers of α ≥ 0); g = Hα − h. Zero at the exact solution.
double group_lasso_kkt_violation(const VectorView& gradient, const VectorView& alpha,
                                 Index group_size, double lambda);

}  // namespace cdens

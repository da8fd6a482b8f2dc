#pragma once
// The points block-coordinate descent on eq. (16) is offered every few sweeps
// (solve_group_lasso_block_coordinate takes one only when it lowers J): a projected Newton
// step on the support of α, and Anderson extrapolation of the last iterates. Each comes with
// its gradient g = Hα − h, formed without a full product with H.

#include "conditional/nonnegative_group_lasso.hpp"

namespace cdens::group_lasso {

/// A point α ≥ 0 with its gradient g = Hα − h; empty when none was found.
struct Candidate {
  Vector alpha;
  Vector gradient;
};

/// Anderson extrapolation (Bertrand & Massias, AISTATS 2021, eq. 4) of the iterates in the
/// columns of `iterates`, oldest first, whose gradients are the columns of `gradients`: the
/// affine combination Σ c_k α⁽ᵏ⁾, Σ c_k = 1, of the last K = cols − 1 with the smallest combined
/// residual ‖Σ c_k (α⁽ᵏ⁾ − α⁽ᵏ⁻¹⁾)‖, projected on α ≥ 0 with the groups that are zero in the
/// last iterate kept zero. An affine combination's gradient is the same combination of the
/// gradients, so only the coordinates the projection moved cost a column of H. Empty when the
/// residuals' Gram matrix gives no finite combination.
Candidate anderson_point(const MatrixView& h_matrix, const Matrix& iterates,
                         const Matrix& gradients, Index group_size);

/// A projected Newton point on the support F of α (its positive coordinates): on F, with the
/// zero coordinates fixed, J is smooth with gradient g_F + λ α_d/‖α_d‖ and Hessian
/// H_FF + ⊕_d (λ/‖α_d‖)(I − u_d u_dᵀ), u_d = α_d/‖α_d‖. The step s is halved (at most ten times,
/// the point projected on α ≥ 0) until J falls below `objective`; H_{·F} s is formed once, and
/// the gradient at the projected α + t s is g + t H_{·F} s plus the columns of the coordinates
/// the projection clipped. Once the support is the solution's, the iteration converges
/// quadratically where block-coordinate descent on correlated groups crawls. Empty when F holds
/// more than `limit` coordinates (the factorisation costs |F|³/3), the Hessian is not
/// numerically positive definite, or no step lowers J.
Candidate support_newton_point(const MatrixView& h_matrix, const VectorView& h_vector,
                               const Vector& alpha, const Vector& gradient, Index group_size,
                               double lambda, double objective, Index limit);

}  // namespace cdens::group_lasso

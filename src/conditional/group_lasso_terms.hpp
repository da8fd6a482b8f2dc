#pragma once
// Pieces of the non-negative group lasso (eq. 16) shared by its solvers
// (nonnegative_group_lasso.cpp) and their acceleration (group_lasso_acceleration.cpp).

#include "conditional/nonnegative_group_lasso.hpp"

namespace cdens::group_lasso {

/// Σ_d ‖α_d‖₂.
double group_norm_sum(const VectorView& alpha, Index group_size);

/// J from α and Hα, without another product.
double objective_from_product(const VectorView& alpha, const VectorView& product,
                              const VectorView& h_vector, Index group_size, double lambda);

/// H v over the non-zero coordinates of v only (non-negativity keeps many at zero), or as one
/// dense product when most are non-zero.
Vector sparse_product(const MatrixView& matrix, const VectorView& v);

}  // namespace cdens::group_lasso

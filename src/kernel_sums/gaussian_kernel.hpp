#pragma once
// Squared distances and Gaussian kernel blocks computed through one matrix product.

#include <string>

#include "cdens/core/types.hpp"
#include "core/math_constants.hpp"

namespace cdens {

/// The widths (standardised units) a fit accepts for a Gaussian kernel: wider or narrower
/// ones under- or overflow exp(−d²/2σ²) and the densities.
inline constexpr double kNarrowestKernelWidth = 1e-8;
inline constexpr double kWidestKernelWidth = 1e8;
inline constexpr const char* kKernelWidthRangeReason =
    ": wider or narrower kernels under- or overflow exp(−d²/2σ²) and the densities";

/// InvalidArgument unless `width` lies in [kNarrowestKernelWidth, kWidestKernelWidth]; `what`
/// names it in the message ("the bandwidth of continuous column waiting").
void require_kernel_width(double width, const std::string& what);

/// D_ij = ‖a_i − b_j‖² for the columns a_i of `a` (d × m) and b_j of `b` (d × k), as the
/// m × k matrix ‖a_i‖² + ‖b_j‖² − 2 a_iᵀb_j (one GEMM); tiny negatives from cancellation are
/// clamped to 0.
void squared_distances(const MatrixView& a, const MatrixView& b, Eigen::Ref<Matrix> out);
Matrix squared_distances(const MatrixView& a, const MatrixView& b);

/// K_ij = exp(−‖a_i − b_j‖² / (2 σ²)), an m × k block.
Matrix gaussian_kernel(const MatrixView& a, const MatrixView& b, double sigma);

}  // namespace cdens

#pragma once
// Fixed isotropic Gaussian kernels on the training points, shared by the fixed-kernel estimators
// (RSDE, SKD) and by GSKD's regression target (Chen, Hong & Harris 2010, §II-B, eqs. 9–15):
// the kernel columns, the Parzen estimate at the training points and the K-fold choice of a
// fixed kernel width by held-out ISE.

#include <cstdint>
#include <functional>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// (2π s²)^{−d/2}, the normaliser of an isotropic Gaussian of width s in d dimensions.
double isotropic_gaussian_normaliser(double width, Index dimension);

/// Φ_kj = G_γ(a_k, b_j) = (2πγ²)^{−d/2} exp(−‖a_k − b_j‖² / 2γ²) (eq. 12): an |a| × |b| block
/// of normalised kernel values (columns: kernels centred on b_j, rows: points a_k).
Matrix isotropic_kernel_columns(const MatrixView& a, const MatrixView& b, double width);

/// t_k = p̂_Parz(z_k; γ) = (1/N) Σ_j G_γ(z_k, z_j) at every training point, the point's own
/// kernel included (eqs. 10, 15): the regression target of SKD and GSKD (eq. 23), RSDE's p̂_N.
/// Summed by the kernel-sum engine's exact path on `threads` threads (the result does not depend
/// on the count).
Vector parzen_at_samples(const MatrixView& z, double width, int threads = 1);

/// A mixture fitted to the samples `train` (d × n, in the working units) with kernel width γ,
/// with the identity scaling: what select_width scores on the held-out fold.
using FixedWidthFit = std::function<GaussianMixture(const Matrix& train, double width)>;

/// The kernel width: the only one of `widths`, or the one of smallest held-out ISE under K-fold
/// cross-validation on z, its table (loss "ise", in the working units) kept in `report`. Every
/// (width, fold) pair is fitted on the other folds and scored by held_out_ise on its fold (one
/// task each on `threads` threads; the table does not depend on the thread count), each a step
/// of `progress`.
double choose_width_by_held_out_ise(const MatrixView& z, const std::vector<double>& widths,
                                    int folds, std::uint64_t seed, int threads,
                                    const FixedWidthFit& fit, FitReport& report,
                                    Progress& progress);

}  // namespace cdens

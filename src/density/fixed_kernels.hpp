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
/// With sample weights c (empty: none) the weighted Parzen estimate Σ_j c_j G_γ(z_k, z_j) / Σc,
/// what the rows repeated c_j times would give. Summed by the kernel-sum engine's exact path on
/// `threads` threads (the result does not depend on the count).
Vector parzen_at_samples(const MatrixView& z, double width, int threads = 1,
                         const Vector& weights = {});

/// √(c_k N / Σc) for the N sample weights c (empty for none): the rows of a least-squares problem
/// times these are its problem weighted by c scaled to a mean of 1, whose leave-one-out
/// residuals leave a row out with all its weight — SKD's and GSKD's OFR-LOO regression and MNQP
/// weights (eqs. 25–39) with sample weights. Scaled to mean 1 so that λ of eqs. (36), (65) and the
/// evidence update weigh as without weights, and scaling every weight changes nothing.
Vector weighted_row_scales(const Vector& weights);

/// A mixture fitted to the samples `train` (d × n, in the working units) with their sample
/// weights (empty: none) and kernel width γ, with the identity scaling: what select_width scores
/// on the held-out fold.
using FixedWidthFit =
    std::function<GaussianMixture(const Matrix& train, const Vector& train_weights, double width)>;

/// The kernel width: the only one of `widths`, or the one of smallest held-out ISE under K-fold
/// cross-validation on z, its table (loss "ise", in the working units) kept in `report`. Every
/// (width, fold) pair is fitted on the other folds and scored by held_out_ise on its fold (one
/// task each on `threads` threads; the table does not depend on the thread count), each a step
/// of `progress`. With sample weights (one per column of z; empty: none) each fit weighs its
/// training samples and each held-out sample counts by its weight.
double choose_width_by_held_out_ise(const MatrixView& z, const Vector& weights,
                                    const std::vector<double>& widths, int folds,
                                    std::uint64_t seed, int threads, const FixedWidthFit& fit,
                                    FitReport& report, Progress& progress);

}  // namespace cdens

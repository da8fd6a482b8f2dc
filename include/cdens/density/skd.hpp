#pragma once
// Sparse kernel density (SKD) estimator with fixed kernels, the comparison method of Chen, Hong &
// Harris 2010 (their reference [20]: Chen, Hong & Harris 2008, after the OFR-LOO-LR algorithm of
// Chen et al. 2004, the paper's [30]): kernels N(z; z_j, γ² I) centred on training points are
// selected one at a time by orthogonal forward regression on the Parzen target t_k =
// p̂_Parz(z_k; γ_Parz), each stage taking the kernel with the smallest leave-one-out MSE J_n under
// local regularisation (one λ_j per kernel, updated by the evidence procedure), until J stops
// falling; the selected kernels' weights are then found by MNQP (eqs. 39–44), which can remove
// more of them. See docs/methods/skd.md.

#include <cstdint>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/density/rsde.hpp"

namespace cdens {

/// Options of fit_skd. Widths are in standardised units (the data's own with `standardize` off).
struct SkdOptions {
  /// γ_Parz of the regression target (eq. 23). 0: chosen by the Parzen window's leave-one-out
  /// likelihood search (fit_parzen's default), as the paper takes the PW estimate's width.
  double target_bandwidth = 0.0;
  /// Candidate kernel widths γ. One value: used as given. Several: the one with the smallest
  /// K-fold held-out ISE is chosen (the paper's [20] finds γ by cross-validation). The default
  /// is RSDE's grid, 12 widths evenly spaced in log over [0.1, 2].
  std::vector<double> bandwidth = log_spaced(0.1, 2.0, 12);
  /// K of the width's cross-validation.
  int folds = 5;
  /// Initial value of every λ_j of the local regularisation (the paper's "very small value").
  double initial_regularization = 1e-6;
  /// Selection passes of OFR-LOO-LR: after each pass the λ_j of the selected kernels are
  /// updated by the evidence formula and the selection is run again, until the selected set is
  /// unchanged or this many passes were made.
  int regularization_passes = 10;
  /// Upper bound on the kernels selected (the LOO criterion normally stops far earlier).
  Index max_kernels = 200;
  /// The weight solver; its prune_threshold removes kernels driven to (near) zero.
  MnqpOptions mnqp = {};
  bool standardize = true;
  /// Seed of the fold split.
  std::uint64_t seed = 0;
};

/// The OFR-LOO-LR selection on z (d × N, as given) with the target t: the indices of the
/// training points whose kernels were selected, in selection order, and the LOO MSE J after
/// the last stage of the last pass.
struct SkdSelection {
  std::vector<Index> selected;
  double loo_mse = 0.0;
  int passes = 0;
};
/// With sample weights c (one per column of z; empty: none) the regression is weighted: its rows
/// times weighted_row_scales(c), so the LOO MSE leaves a sample out with all its weight.
SkdSelection select_skd_kernels(const MatrixView& z, const Vector& target, double width,
                                const SkdOptions& options, const Vector& weights = {});

/// Fits SKD to the samples x (d × N, the user's units). DataError for empty, non-finite or
/// constant data; InvalidArgument for bad options. With context.sample_weights the
/// standardisation, the Parzen target and its width, the kernel width's held-out ISE, the
/// OFR-LOO regression and MNQP's B = ΦᵀCΦ, v = ΦᵀCt are weighted.
/// The report: hyper-parameters bandwidth, target_bandwidth; statistics n_selected (kernels chosen
/// by OFR), n_kernels (kept by MNQP), loo_mse, regularization_passes.
DensityFit fit_skd(const MatrixView& x, const SkdOptions& options = {},
                   const FitContext& context = {});

}  // namespace cdens

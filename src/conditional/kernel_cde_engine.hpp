#pragma once
// The engine shared by the kernel conditional density estimators ε-KDE, NW-CDE and RKDE
// (docs/methods/ekde.md, nwcde.md, rkde.md). All three keep the standardised training pairs
// (u_i, v_i) as mixture components N(y; v_i, σ² I) and differ only in their gate (see
// kernel_gates.hpp) and in how they choose their widths. Their cross-validation needs, for a
// held-out pair (z, t) and many widths σ at once, sums of Gaussian kernel values over training
// pairs; these are computed here in log space from squared distances obtained by one GEMM per
// block of held-out samples, so a candidate width costs one pass of exponentials and no refit.

#include <functional>
#include <memory>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/standardizer.hpp"

namespace cdens {

/// Pairs of standardised samples: z (d_x × n) and t (d_y × n).
struct StandardizedSamples {
  Matrix z;
  Matrix t;
};

/// Training pairs with the per-dimension standardisation of inputs and outputs fitted on them.
struct StandardizedPairs {
  Standardizer x_scaling;
  Standardizer y_scaling;
  StandardizedSamples samples;
};

/// Checks the training pairs (require_training_pairs; a constant column is a DataError) and
/// standardises them. The kernel estimators keep every training pair in the model, so they run on
/// one process: InvalidArgument if `context` spans several.
StandardizedPairs standardize_pairs(const MatrixView& x, const MatrixView& y,
                                    const FitContext& context);

/// This rank's pairs (any number, none included) standardised by the standardisation of every
/// rank's pairs (Standardizer::fit over context.communicator; the weighted one with
/// context.sample_weights, on one process only): for a kernel estimator whose pairs are spread
/// over the ranks (KCDE). InvalidArgument on every rank for bad pairs on any, for dimensions that
/// differ between the ranks, and for sample weights on several ranks; a constant column is a
/// DataError.
StandardizedPairs standardize_shard(const MatrixView& x, const MatrixView& y,
                                    const FitContext& context);

/// The pairs with the listed indices, in that order.
StandardizedSamples gather_pairs(const StandardizedSamples& pairs,
                                 const std::vector<Index>& indices);

/// The training part (all folds but k) of every fold k. Cross-validation keeps the
/// standardisation of the whole training set, as LSCDE does (docs/methods/lscde.md).
std::vector<StandardizedSamples> fold_training_sets(const StandardizedSamples& pairs,
                                                    const KFold& folds);

/// d · log(√(2π) σ), minus the log of the normalising constant of N(·; μ, σ² I_d).
double log_gaussian_normalizer(Index dimension, double sigma);

/// The exponent scales 1 / 2σ² of Gaussian kernels of widths σ.
Vector kernel_scales(const std::vector<double>& sigmas);

/// Log-sums of Gaussian kernel values of held-out pairs against reference pairs.
struct KernelLogSums {
  /// S × m: log Σ_i exp(−(‖z_j − u_i‖² + ‖t_j − v_i‖²) / 2σ_s²), the unnormalised joint KDE.
  Matrix joint;
  /// S × m: log Σ_i exp(−‖z_j − u_i‖² / 2σ_s²), the unnormalised input KDE (the gate's sum).
  Matrix input;
};

/// KernelLogSums of the pairs (z_j, t_j) of `queries` against the pairs (u_i, v_i) of
/// `reference`, one row per scale c_s = 1 / 2σ_s² of `scales`. With `self_offset` ≥ 0, query j
/// is reference sample self_offset + j and is left out of its own sums (leave-one-out); the
/// reference then needs at least two samples.
KernelLogSums kernel_log_sums(const StandardizedSamples& queries,
                              const StandardizedSamples& reference, const VectorView& scales,
                              Index self_offset = -1);

/// A rows × n matrix computed by `block(begin, size)` (which returns its columns [begin,
/// begin + size)) for blocks of at most 256 columns, in parallel on `threads` threads. The blocks
/// depend on n only, so the result does not depend on the thread count.
Matrix columns_by_blocks(Index rows, Index n, int threads,
                         const std::function<Matrix(Index begin, Index size)>& block);

/// The candidates of a one-parameter grid as a column.
Matrix grid_candidates(const std::vector<double>& grid);

/// The fitted estimate p̂(y|x) = Σ_k w_k(x) N(y; v_k, σ² I) / Σ_k w_k(x) with the weights of
/// `gate` and the standardised outputs `centers_y` (see make_output_kernel_mixture); records
/// n_train in `report`.
ConditionalMixture kernel_cde_model(const StandardizedPairs& data,
                                    std::shared_ptr<const ConditionalGate> gate, Matrix centers_y,
                                    double sigma, FitReport& report);

}  // namespace cdens

#pragma once
// GskdStopping::holdout: the stage count and the variance box's upper bound of GSKD chosen by
// K-fold hold-out of the held-out integrated squared error (docs/methods/gskd.md).

#include "cdens/core/cross_validation.hpp"
#include "cdens/density/gskd.hpp"

namespace cdens {

/// The choice and its table: rows (variance_upper, stages), loss "ise".
struct GskdHoldoutChoice {
  double variance_upper = 1.0;
  Index stages = 1;
  CvTable table;
};

/// The held-out ISE estimate ∫p̂² − (2/N_h) Σ_h p̂(z_h) of the mixture with MNQP weights on the
/// first `count` kernels u = (c, γ²) of `kernels` (Gaussian products in closed form).
double gskd_held_out_ise(const MatrixView& held_out, const Vector& weights,
                         const std::vector<Vector>& kernels);

/// Chooses (variance_upper, stages) for standardised samples z with Parzen target width
/// target_width: for each fold and candidate bound, GskdConstruction on the other folds, scored
/// after every stage on the fold; a fold whose construction stopped (eq. 38, patience,
/// max_kernels) keeps its last score for the later stage counts.
GskdHoldoutChoice choose_gskd_stages(const MatrixView& z, double target_width,
                                     const GskdOptions& options, const RwbsOptions& rwbs,
                                     int threads);

}  // namespace cdens

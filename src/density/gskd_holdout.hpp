#pragma once
// GskdStopping::holdout: the stage count and the variance box's upper bound of GSKD chosen by
// K-fold hold-out of the held-out integrated squared error (docs/methods/gskd.md).

#include <cstdint>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/density/gskd.hpp"

namespace cdens {

/// The choice and its table: rows (variance_upper, stages), loss "ise".
struct GskdHoldoutChoice {
  double variance_upper = 1.0;
  Index stages = 1;
  CvTable table;
  Index evaluations = 0;  ///< RWBS cost evaluations of every fold's constructions
};

/// The samples (column indices, ascending) GSKD's hold-out runs on when n exceeds `limit`: a
/// uniformly random subset of `limit` of the n, drawn from stream kHoldOutSubsample of the seed.
/// Empty (every sample) when limit is 0 or n ≤ limit.
std::vector<Index> gskd_holdout_subsample(Index n, Index limit, std::uint64_t seed);

/// Chooses (variance_upper, stages) for standardised samples z with Parzen target width
/// target_width: for each fold and candidate bound, GskdConstruction on the other folds, scored
/// after every stage by held_out_ise (eq. 16 up to ∫p², over the fold) of its MNQP-weighted
/// mixture; a fold whose construction stopped (eq. 38, patience, max_kernels) keeps its last
/// score for the later stage counts. The row is taken from the table by options.stage_rule.
/// Every (fold, bound) construction is a step of `progress`. With sample weights (one per column
/// of z; empty: none) each construction, its target and box weigh its samples and each held-out
/// sample counts by its weight.
GskdHoldoutChoice choose_gskd_stages(const MatrixView& z, const Vector& weights,
                                     double target_width, const GskdOptions& options,
                                     const RwbsOptions& rwbs, int threads,
                                     Progress& progress = silent_progress());

}  // namespace cdens

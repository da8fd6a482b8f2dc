#pragma once
// The random streams of a seed (Rng(seed, stream)): which draw reads which, named here and
// nowhere else. A draw made in parallel takes a stream keyed by what it works on (a start, a
// column, a stage), never by the thread, so results do not depend on the thread count; and
// the draws of one fit never share a stream, so that adding one does not move another.

#include <cstdint>

#include "cdens/core/types.hpp"

namespace cdens::random_stream {

/// The sampling plan (sampling_plan.hpp): basis centres, then folds; also NW-CDE's centres.
inline constexpr std::uint64_t kSamplingPlan = 0;
/// The rows `cdens fit --holdout` keeps out of the fit (draw_holdout_split): the stream the
/// command drew them from before the draw moved into the library, so its splits stay as they
/// were. It is drawn once, on the whole table, before the fit and its own streams.
inline constexpr std::uint64_t kHoldOut = 1;
/// The random starts of the bandwidth search (KCDE, Parzen per dimension), which draw no plan.
inline constexpr std::uint64_t kBandwidthStarts = 0;
/// The held-out pairs of KCDE's subsampled leave-one-out criterion (n beyond exact_limit).
inline constexpr std::uint64_t kSubsampledHeldOut = 1;
/// The held-out pairs of KCDE's screening criterion.
inline constexpr std::uint64_t kScreeningHeldOut = 2;
/// The basis pairs of KCDE's Gaussian-process trend (n beyond its max_basis).
inline constexpr std::uint64_t kTrendBasis = 3;
/// The random starts of the trend's marginal-likelihood search.
inline constexpr std::uint64_t kTrendStarts = 4;
/// The folds of a choice made around whole fits: LSCE's d_z, GSKD's hold-out stage rule.
inline constexpr std::uint64_t kOuterFolds = 999;
/// The samples GSKD's hold-out runs on when N exceeds its holdout_subsample: a stream apart
/// from RWBS's stage streams (indexed by the stage, up to max_kernels) and the folds (999).
inline constexpr std::uint64_t kHoldOutSubsample = std::uint64_t{1} << 61;
/// PRESS: the hold-out permutation (stream 0), then start r of the optimiser (stream r + 1).
inline constexpr std::uint64_t kPressHoldOut = 0;
inline constexpr std::uint64_t press_start(Index start) {
  return static_cast<std::uint64_t>(start) + 1;
}
/// Start r of the Grassmann search at dimension d_z (LSCE, LSMI).
inline constexpr std::uint64_t subspace_start(Index dz, Index start) {
  return 1 + static_cast<std::uint64_t>(dz) * 1000 + static_cast<std::uint64_t>(start);
}
/// Restart r of EM (GMM), stage r of GSKD's RWBS, column r of ConditionalMixture::sample.
inline constexpr std::uint64_t indexed(Index r) { return static_cast<std::uint64_t>(r); }
/// Pair j's uniform draw of its randomised HPD value (calibration: the rank among draws, or a
/// discrete y's level), apart from every sample's stream.
inline constexpr std::uint64_t randomized_hpd(Index j) {
  return static_cast<std::uint64_t>(j) + (std::uint64_t{1} << 62);
}
/// Pair j's uniform draw of the randomised PIT of a discrete y, apart from those above.
inline constexpr std::uint64_t randomized_pit(Index j) {
  return static_cast<std::uint64_t>(j) + (std::uint64_t{3} << 61);
}

}  // namespace cdens::random_stream

#pragma once
// What a fit draws at random before it computes anything: the basis centres of the least-squares
// estimators (LSCDE §2.6: b = min(100, n) of the training pairs, chosen at random; SA-CDE and
// LSCE take theirs the same way) and the K folds of cross-validation. One plan for every
// estimator, so that fits with the same seed hold out the same pairs.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// Centres are taken from the training pairs in `center_order`: the fitted model's b =
/// min(n_centers, n) are its first b pairs. In cross-validation the estimator of fold k is "the
/// estimator obtained without Z_k" (LSCDE §2.5), so its centres are the first
/// min(n_centers, n − n_k) pairs of center_order outside fold k: no held-out pair is ever a basis
/// centre of the model that scores it. (Sharing the fitted model's centres instead lets every
/// held-out pair sit on a centre when n ≤ n_centers, which favours too small a σ;
/// docs/methods/lscde.md.)
struct SamplingPlan {
  std::vector<Index> center_order;  ///< a random permutation of 0 … n−1; 0 … n−1 when n_centers ≥ n
  std::vector<Index> centers;  ///< the fitted model's centres: the first b of center_order
  std::optional<KFold> folds;  ///< the CV folds; absent without cross-validation
  /// fold_centers[k]: the centres of the estimator trained without fold k, in center_order.
  std::vector<std::vector<Index>> fold_centers;
};

/// The plan for n training pairs and a seed: the centre order (a permutation drawn only when
/// n_centers < n), then K = `folds` folds drawn after it from the same random stream; folds = 0
/// draws none. InvalidArgument for n_centers < 1 and for folds outside {0} ∪ [2, n].
SamplingPlan draw_sampling_plan(Index n, Index n_centers, int folds, std::uint64_t seed);

/// The K folds of an estimator that keeps every pair as a component (ε-KDE, RKDE, method
/// selection): the folds of draw_sampling_plan(n, n, folds, seed).
KFold draw_folds(Index n, int folds, std::uint64_t seed);

/// Rows held out to evaluate a fit and rows left to fit it, each increasing.
struct HoldoutSplit {
  std::vector<Index> fit_rows;
  std::vector<Index> held_out_rows;
};

/// The first round(fraction · n) entries of a permutation of 0 … n−1 are held out (`cdens fit
/// --holdout`); the permutation comes from a stream of the seed apart from every draw a fit
/// makes, so the fit on the other rows draws as it would on its own. InvalidArgument naming
/// the fraction `what` unless 0 < fraction < 1 and both parts keep at least one row.
HoldoutSplit draw_holdout_split(Index n, double fraction, std::uint64_t seed,
                                std::string_view what = "the hold-out fraction");

}  // namespace cdens

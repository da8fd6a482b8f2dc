#pragma once
// The sampling plan (sampling_plan.hpp) of a fit whose rows are spread over the ranks of a
// Communicator. Rank 0 draws exactly the plan a single process draws for the global n, so the
// same seed picks the same centres and folds on any number of ranks — and on one process the fit
// is the single-process fit, draw for draw. Every rank then receives what it needs: the centres'
// global row indices (b of them, or a few more for the folds' centres) and the fold of each of
// its own rows. Rank 0 holds 12 bytes per row of all ranks while it draws (the centre order and
// the folds' permutation in 4-byte entries, and the fold of every row), then 4 until it has
// scattered the folds; every other rank holds O(b + its rows).

#include <cstdint>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

struct ShardedSamplingPlan {
  /// The first entries of the plan's center_order (global row indices): every centre of the
  /// fitted model and of every fold's model lies among them.
  std::vector<Index> candidate_order;
  /// The fitted model's centres: positions 0 … b − 1 of candidate_order.
  Index center_count = 0;
  /// fold_centers[k]: the centres of the model trained without fold k, as positions in
  /// candidate_order (increasing, since they follow the centre order).
  std::vector<std::vector<Index>> fold_centers;
  /// The fold of each of this rank's rows; empty without folds.
  std::vector<std::int32_t> local_folds;
  /// Rows per fold over all ranks.
  std::vector<Index> fold_sizes;

  int fold_count() const { return static_cast<int>(fold_sizes.size()); }
};

/// The plan of draw_sampling_plan(n, n_centers, folds, seed) for the n rows of all ranks, this
/// rank holding `local_rows` of them (global indices from sum_counts_below(local_rows) on).
/// Errors of the draw (folds outside {0} ∪ [2, n], n_centers < 1) are thrown on every rank.
ShardedSamplingPlan draw_sharded_sampling_plan(Index local_rows, Index n_centers, int folds,
                                               std::uint64_t seed,
                                               const Communicator& communicator);

/// The fold of each of this rank's `local_rows` rows among the K = `folds` folds that
/// draw_fold_labels draws for the n rows of every rank from Rng(seed, stream) — one process's
/// folds — drawn by rank 0 and sent to each rank. Errors of the draw are thrown on every rank.
std::vector<std::int32_t> draw_sharded_fold_labels(Index local_rows, int folds, std::uint64_t seed,
                                                   std::uint64_t stream,
                                                   const Communicator& communicator);

/// The columns of a matrix of samples spread over the ranks (`local`, this rank's, whose first
/// column is global sample `first_sample`) at the global indices `samples`, in that order, on
/// every rank. On one rank, gather_samples(local, samples).
Matrix gather_global_samples(const MatrixView& local, Index first_sample,
                             const std::vector<Index>& samples, const Communicator& communicator);

/// Training pairs spread over the ranks, as the least-squares estimators (LSCDE, SA-CDE) start
/// from: the standardisation of every rank's pairs, this rank's pairs standardised, the
/// sampling plan and the standardised candidate centres.
struct ShardedPairs {
  Standardizer x_scaling;
  Standardizer y_scaling;
  Index n;   ///< pairs of every rank
  Matrix z;  ///< this rank's standardised x, d_x × n_r
  Matrix t;  ///< this rank's standardised y, d_y × n_r
  ShardedSamplingPlan plan;
  Matrix candidates_x;  ///< the standardised x of plan.candidate_order
  Matrix candidates_y;
};

/// Prepares this rank's pairs (x, y) after the estimator has validated them: InvalidArgument on
/// every rank unless all pass the same dimensions, then the global standardisers, and the plan
/// of draw_sharded_sampling_plan(…, n_centers, folds, seed) over context.communicator. A
/// constant column is named by context.column_names. With `sample_weights` (one process only,
/// validated by the caller) the standardisers are the weighted ones. Every rank must call it.
ShardedPairs prepare_sharded_pairs(const MatrixView& x, const MatrixView& y, Index n_centers,
                                   int folds, std::uint64_t seed, const Vector& sample_weights,
                                   const FitContext& context);

}  // namespace cdens

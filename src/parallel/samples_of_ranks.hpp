#pragma once
// What a fit whose samples are spread over the ranks of a Communicator learns of all of them at
// once: the distinct values of a column (a discrete column's levels, whether a column looks
// discrete), and every sample, gathered for a model that keeps them all (KCDE's). On one process
// each is the column or the samples themselves.

#include <cstddef>
#include <optional>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The distinct values of `values` over every rank (this rank's share), increasing, on every
/// rank; nothing, on every rank, when some rank holds more than `limit` distinct values. A
/// collective call.
std::optional<std::vector<double>> distinct_values_of_ranks(const VectorView& values,
                                                            std::size_t limit,
                                                            const Communicator& communicator);

/// Every rank's columns of `local` (d × n_r, the same d on every rank), concatenated in rank
/// order — the samples in their global order — on every rank. A collective call.
Matrix gather_every_sample(const MatrixView& local, const Communicator& communicator);

/// The samples at the global indices `pairs` (ascending; empty: every sample) of the samples
/// spread over the ranks (`local`, this rank's d × n_r in global order), on every rank: each rank
/// fills the ones it holds and the ranks add them. On one process the columns themselves. A
/// collective call.
Matrix samples_at_global_indices(const MatrixView& local, const std::vector<Index>& pairs,
                                 const Communicator& communicator);

}  // namespace cdens

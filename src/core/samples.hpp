#pragma once
// Picking samples (columns) or dimensions (rows) out of a data matrix.

#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The columns of `data` listed in `columns`, in that order (d × columns.size()).
Matrix gather_samples(const MatrixView& data, const std::vector<Index>& columns);

/// The rows of `data` listed in `rows`, in that order (rows.size() × n).
Matrix gather_rows(const MatrixView& data, const std::vector<Index>& rows);

/// Kernel centres taken from n samples (LSCDE paper §2.6, SA-CDE §3: "chosen randomly from
/// training samples"): all samples in data order when count ≥ n, else the first `count`
/// entries of a random permutation drawn from `rng`.
std::vector<Index> choose_centers(Index n, Index count, Rng& rng);

}  // namespace cdens

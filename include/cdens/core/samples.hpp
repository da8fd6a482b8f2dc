#pragma once
// Picking samples (columns) out of a data matrix.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// The columns of `data` listed in `columns`, in that order (d × columns.size()).
Matrix gather_samples(const MatrixView& data, const std::vector<Index>& columns);

}  // namespace cdens

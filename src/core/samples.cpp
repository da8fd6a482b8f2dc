#include "cdens/core/samples.hpp"

namespace cdens {

Matrix gather_samples(const MatrixView& data, const std::vector<Index>& columns) {
  Matrix selected(data.rows(), static_cast<Index>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    selected.col(static_cast<Index>(c)) = data.col(columns[c]);
  }
  return selected;
}

}  // namespace cdens

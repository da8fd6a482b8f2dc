#include "core/samples.hpp"

namespace cdens {

Matrix gather_samples(const MatrixView& data, const std::vector<Index>& columns) {
  Matrix selected(data.rows(), static_cast<Index>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    selected.col(static_cast<Index>(c)) = data.col(columns[c]);
  }
  return selected;
}

Matrix gather_rows(const MatrixView& data, const std::vector<Index>& rows) {
  Matrix selected(static_cast<Index>(rows.size()), data.cols());
  for (std::size_t r = 0; r < rows.size(); ++r)
    selected.row(static_cast<Index>(r)) = data.row(rows[r]);
  return selected;
}

std::vector<Index> choose_centers(Index n, Index count, Rng& rng) {
  std::vector<Index> centers;
  if (count >= n) {
    for (Index i = 0; i < n; ++i) centers.push_back(i);
  } else {
    centers = rng.permutation(n);
    centers.resize(static_cast<std::size_t>(count));
  }
  return centers;
}

}  // namespace cdens

#include "kernel_sums/regular_grid.hpp"

#include <algorithm>
#include <cmath>

namespace cdens {

std::optional<RegularGrid> regular_grid_of(const MatrixView& queries) {
  const Index d = queries.rows();
  const Index m = queries.cols();
  if (d == 0 || m < 2) return std::nullopt;
  RegularGrid grid;
  grid.start = queries.col(0);
  grid.spacing.resize(d);
  // G_k: the steps along dimension k at stride G_0 ⋯ G_{k−1}, while the other coordinates stay.
  Index stride = 1;
  for (Index k = 0; k < d; ++k) {
    Index count = 1;
    while (count * stride < m && queries(k, count * stride) != queries(k, 0)) {
      bool others_equal = true;
      for (Index l = k + 1; l < d; ++l) {
        others_equal = others_equal && queries(l, count * stride) == queries(l, 0);
      }
      if (!others_equal) break;
      ++count;
    }
    if (count < 2) return std::nullopt;
    grid.counts.push_back(count);
    grid.spacing(k) =
        (queries(k, (count - 1) * stride) - queries(k, 0)) / static_cast<double>(count - 1);
    if (!(grid.spacing(k) > 0.0) || !std::isfinite(grid.spacing(k))) return std::nullopt;
    stride *= count;
  }
  if (stride != m) return std::nullopt;
  for (Index j = 0; j < m; ++j) {
    Index rest = j;
    for (Index k = 0; k < d; ++k) {
      const Index step = rest % grid.counts[static_cast<std::size_t>(k)];
      rest /= grid.counts[static_cast<std::size_t>(k)];
      const double deviation =
          std::abs(queries(k, j) - (grid.start(k) + static_cast<double>(step) * grid.spacing(k)));
      if (!(deviation <= 1e-9 * grid.spacing(k))) return std::nullopt;
      grid.largest_deviation = std::max(grid.largest_deviation, deviation);
    }
  }
  return grid;
}

}  // namespace cdens

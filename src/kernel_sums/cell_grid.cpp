#include "kernel_sums/cell_grid.hpp"

#include <algorithm>
#include <cmath>

namespace cdens {
namespace {

/// Σ of `prefix` (inclusive prefix sums on a grid of counts_k + 1 nodes, node 0 holding zeros)
/// over the cells low … high by inclusion and exclusion of the 2^d corners.
double box_sum(const CellGrid& grid, const std::vector<double>& prefix,
               const std::vector<Index>& low, const std::vector<Index>& high) {
  const Index d = grid.dimension();
  std::vector<Index> from(static_cast<std::size_t>(d));
  std::vector<Index> to(static_cast<std::size_t>(d));
  for (Index k = 0; k < d; ++k) {
    const std::size_t kk = static_cast<std::size_t>(k);
    from[kk] = std::clamp<Index>(low[kk], 0, grid.counts[kk]);
    to[kk] = std::clamp<Index>(high[kk] + 1, 0, grid.counts[kk]);
    if (to[kk] <= from[kk]) return 0.0;
  }
  double sum = 0.0;
  for (Index corner = 0; corner < (Index{1} << d); ++corner) {
    Index at = 0;
    Index stride = 1;
    int sign = 1;
    for (Index k = 0; k < d; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const bool upper = ((corner >> k) & 1) == 0;
      at += (upper ? to[kk] : from[kk]) * stride;
      if (!upper) sign = -sign;
      stride *= grid.counts[kk] + 1;
    }
    sum += sign * prefix[static_cast<std::size_t>(at)];
  }
  return std::max(0.0, sum);
}

/// Inclusive prefix sums, along each dimension in turn, of values placed at node c + 1.
std::vector<double> prefix_sums(const CellGrid& grid, const std::vector<double>& per_cell) {
  const Index d = grid.dimension();
  std::vector<Index> node_strides(static_cast<std::size_t>(d), 1);
  for (Index k = 1; k < d; ++k) {
    node_strides[static_cast<std::size_t>(k)] = node_strides[static_cast<std::size_t>(k - 1)] *
                                                (grid.counts[static_cast<std::size_t>(k - 1)] + 1);
  }
  const Index nodes = node_strides.back() * (grid.counts.back() + 1);
  std::vector<double> prefix(static_cast<std::size_t>(nodes), 0.0);
  for (Index c = 0; c < grid.cells(); ++c) {
    const std::vector<Index> at = grid.coordinates(c);
    Index node = 0;
    for (Index k = 0; k < d; ++k) {
      node += (at[static_cast<std::size_t>(k)] + 1) * node_strides[static_cast<std::size_t>(k)];
    }
    prefix[static_cast<std::size_t>(node)] = per_cell[static_cast<std::size_t>(c)];
  }
  for (Index k = 0; k < d; ++k) {
    const Index stride = node_strides[static_cast<std::size_t>(k)];
    const Index length = grid.counts[static_cast<std::size_t>(k)] + 1;
    for (Index node = 0; node < nodes; ++node) {
      if ((node / stride) % length != 0) {
        prefix[static_cast<std::size_t>(node)] += prefix[static_cast<std::size_t>(node - stride)];
      }
    }
  }
  return prefix;
}

}  // namespace

Index CellGrid::cell_of(const double* x) const {
  Index cell = 0;
  for (Index k = 0; k < dimension(); ++k) {
    const std::size_t kk = static_cast<std::size_t>(k);
    const double position = std::floor((x[k] - start[kk]) / side);
    if (!(position >= 0.0 && position < static_cast<double>(counts[kk]))) return -1;
    cell += static_cast<Index>(position) * strides[kk];
  }
  return cell;
}

std::vector<Index> CellGrid::coordinates(Index cell) const {
  std::vector<Index> at(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) {
    at[k] = cell % counts[k];
    cell /= counts[k];
  }
  return at;
}

double CellGrid::weight_in(const std::vector<Index>& low, const std::vector<Index>& high) const {
  return box_sum(*this, weight_prefix, low, high);
}

double CellGrid::count_in(const std::vector<Index>& low, const std::vector<Index>& high) const {
  return box_sum(*this, count_prefix, low, high);
}

std::optional<CellGrid> make_cell_grid(const KernelSumReference& reference, double side,
                                       double margin, double cell_budget) {
  const Index d = reference.dimension();
  if (d > 3) return std::nullopt;
  CellGrid grid;
  grid.side = side;
  double cells = 1.0;
  for (Index k = 0; k < d; ++k) {
    const double low = reference.points.row(k).minCoeff() - margin;
    const double high = reference.points.row(k).maxCoeff() + margin;
    const double count = std::floor((high - low) / side) + 1.0;
    cells *= count;
    if (!(cells <= cell_budget)) return std::nullopt;
    grid.start.push_back(low);
    grid.counts.push_back(static_cast<Index>(count));
    grid.strides.push_back(k == 0 ? 1 : grid.strides.back() * grid.counts[grid.counts.size() - 2]);
  }
  // Counting sort of the points by cell.
  const Index n = reference.size();
  const Index total = static_cast<Index>(cells);
  std::vector<Index> cell_of_point(static_cast<std::size_t>(n));
  grid.first.assign(static_cast<std::size_t>(total + 1), 0);
  for (Index i = 0; i < n; ++i) {
    const Index cell = grid.cell_of(reference.points.col(i).data());
    cell_of_point[static_cast<std::size_t>(i)] = cell;
    ++grid.first[static_cast<std::size_t>(cell + 1)];
  }
  std::vector<double> per_cell_count(static_cast<std::size_t>(total));
  for (Index c = 0; c < total; ++c) {
    per_cell_count[static_cast<std::size_t>(c)] =
        static_cast<double>(grid.first[static_cast<std::size_t>(c + 1)]);
    grid.first[static_cast<std::size_t>(c + 1)] += grid.first[static_cast<std::size_t>(c)];
  }
  std::vector<Index> next(grid.first.begin(), grid.first.end() - 1);
  grid.points.resize(d, n);
  grid.weights.resize(n);
  std::vector<double> per_cell_weight(static_cast<std::size_t>(total), 0.0);
  for (Index i = 0; i < n; ++i) {
    const std::size_t cell = static_cast<std::size_t>(cell_of_point[static_cast<std::size_t>(i)]);
    const Index to = next[cell]++;
    grid.points.col(to) = reference.points.col(i);
    grid.weights(to) = reference.weights(i);
    per_cell_weight[cell] += reference.weights(i);
  }
  grid.weight_prefix = prefix_sums(grid, per_cell_weight);
  grid.count_prefix = prefix_sums(grid, per_cell_count);
  return grid;
}

}  // namespace cdens

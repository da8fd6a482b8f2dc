#include "core/duplicate_rows.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cdens {

RowGroups group_identical_rows(const MatrixView& x, const MatrixView& y) {
  const Index n = x.cols();
  // Lexicographic order of the columns (x's values, then y's), ties by row: equal rows end up
  // next to each other with the earliest first.
  const auto value = [&](Index row, Index d) {
    return d < x.rows() ? x(d, row) : y(d - x.rows(), row);
  };
  const Index width = x.rows() + y.rows();
  // A total order even with NaN (after every number, equal to itself), so that the sort is
  // defined on any data; a fit refuses NaN after the grouping.
  const auto before = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  const auto compare = [&](Index a, Index b) {
    for (Index d = 0; d < width; ++d) {
      const double first = value(a, d);
      const double second = value(b, d);
      if (before(first, second)) return -1;
      if (before(second, first)) return 1;
    }
    return 0;
  };
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(), [&](Index a, Index b) {
    const int sign = compare(a, b);
    return sign != 0 ? sign < 0 : a < b;
  });
  // The first row of every row's group.
  std::vector<Index> first_of(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool repeats = k > 0 && compare(order[k - 1], order[k]) == 0;
    first_of[static_cast<std::size_t>(order[k])] =
        repeats ? first_of[static_cast<std::size_t>(order[k - 1])] : order[k];
  }
  RowGroups groups;
  groups.group_of.resize(static_cast<std::size_t>(n));
  std::vector<Index> position(static_cast<std::size_t>(n), -1);
  for (Index i = 0; i < n; ++i) {
    const auto first = static_cast<std::size_t>(first_of[static_cast<std::size_t>(i)]);
    if (position[first] < 0) {
      position[first] = groups.groups();
      groups.first_rows.push_back(i);
    }
    groups.group_of[static_cast<std::size_t>(i)] = position[first];
  }
  return groups;
}

std::vector<Index> reduced_counts(const RowGroups& groups) {
  std::vector<Index> counts(static_cast<std::size_t>(groups.groups()), 0);
  for (const Index group : groups.group_of) ++counts[static_cast<std::size_t>(group)];
  Index common = 0;
  for (const Index count : counts) common = std::gcd(common, count);
  for (Index& count : counts) count /= common;
  return counts;
}

std::vector<Index> first_copies(const RowGroups& groups, const std::vector<Index>& counts) {
  std::vector<Index> taken(counts.size(), 0);
  std::vector<Index> rows;
  for (Index i = 0; i < groups.rows(); ++i) {
    const auto group = static_cast<std::size_t>(groups.group_of[static_cast<std::size_t>(i)]);
    if (taken[group] < counts[group]) {
      ++taken[group];
      rows.push_back(i);
    }
  }
  return rows;
}

Vector group_weights(const RowGroups& groups, const Vector& weights) {
  Vector summed = Vector::Zero(groups.groups());
  for (Index i = 0; i < groups.rows(); ++i) {
    summed(groups.group_of[static_cast<std::size_t>(i)]) += weights.size() > 0 ? weights(i) : 1.0;
  }
  return summed;
}

}  // namespace cdens

#pragma once
// The draws of the sampling plan (src/core/sampling_plan.hpp), shared by draw_sampling_plan and
// rank 0's draw of a plan for rows spread over ranks (sharded_sampling_plan.hpp), which keeps
// its permutations in 4-byte entries.

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The centre order of n pairs: a permutation drawn from `rng` when n_centers < n (the only
/// draw), 0 … n − 1 otherwise. InvalidArgument for n_centers < 1.
template <typename Entry>
std::vector<Entry> draw_center_order(Index n, Index n_centers, Rng& rng) {
  if (n_centers < 1) throw InvalidArgument("the number of basis centres must be at least 1");
  if (n_centers < n) return rng.permutation<Entry>(n);
  std::vector<Entry> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Entry{0});
  return order;
}

/// The positions in `order` of its first b entries outside fold k (fold_of[entry] ≠ k): where
/// the centres of the estimator trained without fold k stand in the centre order.
template <typename Order, typename Labels>
std::vector<Index> positions_outside_fold(const Order& order, const Labels& fold_of, int k,
                                          Index b) {
  std::vector<Index> positions;
  for (std::size_t p = 0; p < order.size() && static_cast<Index>(positions.size()) < b; ++p) {
    if (fold_of[static_cast<std::size_t>(order[p])] != k)
      positions.push_back(static_cast<Index>(p));
  }
  return positions;
}

}  // namespace cdens

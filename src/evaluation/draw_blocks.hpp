#pragma once
// Draws of p̂(·|x_i) for every pair, a block of pairs at a time so that memory stays bounded
// whatever the number of pairs: what the Monte-Carlo scores (energy score, HPD values for
// d_y > 1) share.

#include <algorithm>
#include <cstdint>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

/// Calls visit(first, sample) for consecutive blocks of the columns of x, where `sample`
/// (d_y × (count · draws)) holds `draws` draws for each of the block's pairs first … first +
/// count − 1, the pair's draws side by side. Block b draws with a seed derived from (seed, b), so
/// the result depends on the seed alone. Each block done advances `progress` by its pairs.
template <class Visit>
void for_each_draw_block(const ConditionalMixture& model, const MatrixView& x, Index draws,
                         std::uint64_t seed, Progress& progress, Visit&& visit) {
  constexpr Index kColumnsPerBlock = Index{1} << 18;
  const Index pairs_per_block = std::max<Index>(1, kColumnsPerBlock / draws);
  for (Index first = 0, block = 0; first < x.cols(); first += pairs_per_block, ++block) {
    const Index count = std::min(pairs_per_block, x.cols() - first);
    // The golden-ratio increment of splitmix64 keeps the blocks' seeds apart.
    const std::uint64_t block_seed =
        seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(block + 1);
    visit(first, model.sample(x.middleCols(first, count), draws, block_seed));
    progress.advance(count);
  }
}

}  // namespace cdens::detail

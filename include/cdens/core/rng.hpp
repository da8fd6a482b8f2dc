#pragma once
// The one source of randomness. Every random choice (centres, folds, restarts, samples) is drawn
// from an Rng built from the seed in the estimator's options, so a seed fixes the result on any
// number of threads: parallel work takes its own stream, keyed by what it works on, never by
// the thread that happens to run it.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

class Rng {
 public:
  /// The generator for (seed, stream); different streams are independent sequences.
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0);

  std::mt19937_64& engine() { return engine_; }
  /// Uniform on [0, 1).
  double uniform();
  /// Standard normal.
  double normal();
  /// A uniformly random permutation of 0 … n − 1. The draws depend on n only, so every Entry
  /// type wide enough for n − 1 gives the same permutation from the same state (4-byte entries
  /// halve the memory of a permutation of many rows).
  /// Throws InvalidArgument when n − 1 does not fit an Entry.
  template <typename Entry = Index>
  std::vector<Entry> permutation(Index n) {
    if (n > 0 && static_cast<std::uint64_t>(n - 1) > std::numeric_limits<Entry>::max()) {
      throw InvalidArgument("a permutation of " + std::to_string(n) + " entries needs more than " +
                            std::to_string(sizeof(Entry)) + "-byte entries");
    }
    std::vector<Entry> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Entry{0});
    std::shuffle(order.begin(), order.end(), engine_);
    return order;
  }

 private:
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_;
};

}  // namespace cdens

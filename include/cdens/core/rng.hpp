#pragma once
// The one source of randomness. Every random choice (centres, folds, restarts, samples) is drawn
// from an Rng built from the seed in the estimator's options, so a seed fixes the result on any
// number of threads: parallel work takes its own stream, keyed by what it works on, never by
// the thread that happens to run it.

#include <cstdint>
#include <random>
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
  /// A uniformly random permutation of 0 … n − 1.
  std::vector<Index> permutation(Index n);

 private:
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_;
};

}  // namespace cdens

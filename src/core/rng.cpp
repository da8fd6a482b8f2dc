#include "cdens/core/rng.hpp"

namespace cdens {

Rng::Rng(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                         static_cast<std::uint32_t>(stream),
                         static_cast<std::uint32_t>(stream >> 32)};
  engine_.seed(sequence);
}

double Rng::uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_); }

double Rng::normal() { return normal_(engine_); }

}  // namespace cdens

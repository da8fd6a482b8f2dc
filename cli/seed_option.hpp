#pragma once
// The --seed option of the commands that draw random numbers (fit, sample, evaluate, compare).

#include <cstdint>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

/// Adds --seed: a non-negative integer (CLI11 alone would wrap "-1" around to 2^64 − 1).
void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description);

}  // namespace cdens::cli

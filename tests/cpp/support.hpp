#pragma once
// Helpers shared by the C++ tests.

#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens::test {

/// d × n matrix of independent standard normal draws.
Matrix normal_matrix(Index d, Index n, Rng& rng);

/// Path of a fresh file name in the system's temporary directory.
std::string temporary_path(const std::string& stem);

}  // namespace cdens::test

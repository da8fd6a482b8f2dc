#include "support.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace cdens::test {

Matrix normal_matrix(Index d, Index n, Rng& rng) {
  Matrix values(d, n);
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < d; ++i) values(i, j) = rng.normal();
  }
  return values;
}

std::string temporary_path(const std::string& stem) {
  static std::atomic<int> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("cdens_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" + stem))
      .string();
}

}  // namespace cdens::test

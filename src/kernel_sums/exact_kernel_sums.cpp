#include "kernel_sums/exact_kernel_sums.hpp"

#include <algorithm>
#include <cmath>

#include "parallel/parallel.hpp"

namespace cdens {
namespace {

constexpr Index kQueryBlock = 256;
// 256 × 256 exponents (512 KiB) stay in the L2 cache between the GEMM and the exp.
constexpr Index kPointBlock = 256;
// A floored term adds at most e^−700 (relative to W = 1); a sum above e^−600 is then correct to
// n·e^−100 relative, far below rounding.
constexpr double kExponentFloor = -700.0;
const double kSmallestTrustedSum = std::exp(-600.0);

}  // namespace

Vector exact_log_kernel_sums(const KernelSumReference& reference, const MatrixView& queries,
                             int threads) {
  const Index m = queries.cols();
  const Index n = reference.size();
  Vector result(m);
  const Index blocks = (m + kQueryBlock - 1) / kQueryBlock;
  parallel_for(threads, blocks, [&](Index block) {
    const Index start = block * kQueryBlock;
    const Index width = std::min(kQueryBlock, m - start);
    const auto block_queries = queries.middleCols(start, width);
    const Eigen::ArrayXd query_offsets =
        -0.5 * block_queries.colwise().squaredNorm().transpose().array();
    Matrix products(std::min(kPointBlock, n), width);
    Vector sums = Vector::Zero(width);
    for (Index first = 0; first < n; first += kPointBlock) {
      const Index size = std::min(kPointBlock, n - first);
      auto exponents = products.topRows(size);
      exponents.noalias() = reference.points.middleCols(first, size).transpose() * block_queries;
      const auto offsets = reference.offsets.segment(first, size).array();
      // Column by column, each an assignment Eigen vectorises (its exp is a packet function only
      // when evaluated into memory, not inside a partial reduction).
      for (Index j = 0; j < width; ++j) {
        auto column = exponents.col(j).array();
        column = (column + offsets + query_offsets(j)).max(kExponentFloor).exp();
        sums(j) += column.sum();
      }
    }
    for (Index j = 0; j < width; ++j) {
      result(start + j) = sums(j) >= kSmallestTrustedSum
                              ? std::log(sums(j))
                              : reference.log_space_sum(block_queries.col(j));
    }
  });
  return result;
}

}  // namespace cdens

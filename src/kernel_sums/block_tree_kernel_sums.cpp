#include "kernel_sums/block_tree_kernel_sums.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// As in the exact path: floored exponents keep subnormal numbers out; sums above e^−600 are not
// changed by the floor beyond rounding.
constexpr double kExponentFloor = -700.0;
const double kSmallestTrustedSum = std::exp(-600.0);

/// The smallest squared distance between the boxes [low_a, high_a] and [low_b, high_b].
double box_squared_distance(const VectorView& low_a, const VectorView& high_a,
                            const VectorView& low_b, const VectorView& high_b) {
  double sum = 0.0;
  for (Index k = 0; k < low_a.size(); ++k) {
    const double gap = std::max({0.0, low_a(k) - high_b(k), low_b(k) - high_a(k)});
    sum += gap * gap;
  }
  return sum;
}

std::vector<Index> leaves_of(const KdTree& tree) {
  std::vector<Index> leaves;
  for (Index node = 0; node < static_cast<Index>(tree.nodes().size()); ++node) {
    if (tree.nodes()[static_cast<std::size_t>(node)].left < 0) leaves.push_back(node);
  }
  return leaves;
}

}  // namespace

Vector block_tree_log_kernel_sums(const KdTree& point_tree, const KernelSumReference& reference,
                                  const MatrixView& queries, double relative_tolerance, int threads,
                                  double* blocks_summed, const Matrix* factors, Matrix* means) {
  const Index m = queries.cols();
  Vector result(m);
  const Index factor_count = factors != nullptr && means != nullptr ? factors->rows() : 0;
  if (factor_count > 0) means->resize(factor_count, m);
  if (m == 0) return result;
  // The points' exponent offsets log ŵ_i − ½‖p̃_i‖², and their factors, in the tree's order.
  const Matrix& points = point_tree.points();
  Vector offsets(reference.size());
  Matrix tree_factors(factor_count, reference.size());
  for (Index k = 0; k < reference.size(); ++k) {
    const Index column = point_tree.order()[static_cast<std::size_t>(k)];
    offsets(k) = reference.offsets(column);
    if (factor_count > 0) tree_factors.col(k) = factors->col(column);
  }
  const std::vector<Index> point_leaves = leaves_of(point_tree);
  // The largest factor of each leaf (C × leaves), for the bounds of the factor sums.
  Matrix leaf_factors(factor_count, static_cast<Index>(point_leaves.size()));
  for (std::size_t b = 0; b < point_leaves.size() && factor_count > 0; ++b) {
    const KdTree::Node& node = point_tree.nodes()[static_cast<std::size_t>(point_leaves[b])];
    leaf_factors.col(static_cast<Index>(b)) =
        tree_factors.middleCols(node.begin, node.end - node.begin).rowwise().maxCoeff();
  }
  for (const Index leaf : point_leaves) {
    const KdTree::Node& node = point_tree.nodes()[static_cast<std::size_t>(leaf)];
    if (node.end - node.begin > kKernelSumBlock) {
      throw std::logic_error("block_tree_log_kernel_sums: a point leaf exceeds the block size");
    }
  }
  const KdTree query_tree(queries, Vector::Ones(m), kQueryBlock);
  const std::vector<Index> query_leaves = leaves_of(query_tree);
  std::atomic<long long> pairs_summed{0};

  parallel_for(threads, static_cast<Index>(query_leaves.size()), [&](Index task) {
    const Index query_leaf = query_leaves[static_cast<std::size_t>(task)];
    const KdTree::Node& block = query_tree.nodes()[static_cast<std::size_t>(query_leaf)];
    const Index width = block.end - block.begin;
    const auto block_queries = query_tree.points().middleCols(block.begin, width);
    const auto query_low = query_tree.lower().col(query_leaf);
    const auto query_high = query_tree.upper().col(query_leaf);

    // Point blocks nearest first, with the most each can add to a query of this block.
    const Index count = static_cast<Index>(point_leaves.size());
    std::vector<double> distances(static_cast<std::size_t>(count));
    for (Index b = 0; b < count; ++b) {
      const Index leaf = point_leaves[static_cast<std::size_t>(b)];
      distances[static_cast<std::size_t>(b)] = box_squared_distance(
          query_low, query_high, point_tree.lower().col(leaf), point_tree.upper().col(leaf));
    }
    std::vector<Index> order(static_cast<std::size_t>(count));
    std::iota(order.begin(), order.end(), Index{0});
    std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
      return distances[static_cast<std::size_t>(a)] < distances[static_cast<std::size_t>(b)];
    });
    // remaining[r]: the bound R of the blocks order[r], order[r + 1], …; remaining_factors.col(r)
    // the factor sums' bounds.
    std::vector<double> remaining(static_cast<std::size_t>(count) + 1, 0.0);
    Matrix remaining_factors = Matrix::Zero(factor_count, count + 1);
    for (Index r = count - 1; r >= 0; --r) {
      const Index b = order[static_cast<std::size_t>(r)];
      const Index leaf = point_leaves[static_cast<std::size_t>(b)];
      const double bound = point_tree.nodes()[static_cast<std::size_t>(leaf)].weight *
                           std::exp(-0.5 * distances[static_cast<std::size_t>(b)]);
      remaining[static_cast<std::size_t>(r)] = remaining[static_cast<std::size_t>(r) + 1] + bound;
      if (factor_count > 0) {
        remaining_factors.col(r) = remaining_factors.col(r + 1) + bound * leaf_factors.col(b);
      }
    }

    const Eigen::ArrayXd query_offsets =
        -0.5 * block_queries.colwise().squaredNorm().transpose().array();
    Matrix exponents(kKernelSumBlock, width);
    Vector sums = Vector::Zero(width);
    Matrix factor_sums = Matrix::Zero(factor_count, width);
    Index summed = 0;
    for (; summed < count; ++summed) {
      if (summed > 0 && 0.5 * remaining[static_cast<std::size_t>(summed)] <=
                            relative_tolerance * sums.minCoeff()) {
        break;
      }
      const Index leaf =
          point_leaves[static_cast<std::size_t>(order[static_cast<std::size_t>(summed)])];
      const KdTree::Node& node = point_tree.nodes()[static_cast<std::size_t>(leaf)];
      const Index size = node.end - node.begin;
      auto products = exponents.topRows(size);
      products.noalias() = points.middleCols(node.begin, size).transpose() * block_queries;
      const auto point_offsets = offsets.segment(node.begin, size).array();
      for (Index j = 0; j < width; ++j) {
        auto column = products.col(j).array();
        column = (column + point_offsets + query_offsets(j)).max(kExponentFloor).exp();
        sums(j) += column.sum();
      }
      if (factor_count > 0) {
        factor_sums.noalias() += tree_factors.middleCols(node.begin, size) * products;
      }
    }
    pairs_summed += summed;
    // The blocks left out add between 0 and R: their midpoint R / 2.
    sums.array() += 0.5 * remaining[static_cast<std::size_t>(summed)];
    for (Index j = 0; j < width; ++j) {
      const Index query = query_tree.order()[static_cast<std::size_t>(block.begin + j)];
      const bool trusted = sums(j) >= kSmallestTrustedSum;
      result(query) = trusted ? std::log(sums(j)) : reference.log_space_sum(block_queries.col(j));
      if (factor_count == 0) continue;
      means->col(query) =
          trusted ? Vector((factor_sums.col(j) + 0.5 * remaining_factors.col(summed)) / sums(j))
                  : reference.log_space_means(block_queries.col(j), *factors);
    }
  });
  if (blocks_summed != nullptr) {
    *blocks_summed =
        static_cast<double>(pairs_summed.load()) /
        (static_cast<double>(point_leaves.size()) * static_cast<double>(query_leaves.size()));
  }
  return result;
}

}  // namespace cdens

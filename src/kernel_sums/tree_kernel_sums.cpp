#include "kernel_sums/tree_kernel_sums.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "parallel/parallel.hpp"

namespace cdens {
namespace {

constexpr Index kQueryBlock = 256;
// Exponents are floored here (no subnormal arithmetic); a floored term is off by at most e^−700,
// which is negligible in any sum that is accepted (at least e^−600).
constexpr double kExponentFloor = -700.0;
const double kSmallestTrustedSum = std::exp(-600.0);

/// One query's traversal: the tree, the query, its stack.
class BoundedSum {
 public:
  BoundedSum(const KdTree& tree, const Vector& log_weights, double relative_tolerance)
      : tree_(tree), log_weights_(log_weights), tolerance_(relative_tolerance) {}

  /// Σ_i ŵ_i exp(shift − ½‖q − p_i‖²) within the relative tolerance.
  double sum(const VectorView& query, double shift) {
    query_ = query.data();
    shift_ = shift;
    const auto& nodes = tree_.nodes();
    Entry root = entry(0);
    double lower = nodes[0].weight * root.k_min;  // a lower bound of the whole sum
    double used = 0.0;                            // error taken so far
    double done = 0.0;                            // weight accounted for so far
    double estimate = 0.0;
    stack_.clear();
    stack_.push_back(root);
    while (!stack_.empty()) {
      const Entry top = stack_.back();
      stack_.pop_back();
      const KdTree::Node& node = nodes[static_cast<std::size_t>(top.node)];
      const double error = 0.5 * node.weight * (top.k_max - top.k_min);
      if (used + error <= tolerance_ * lower * (done + node.weight)) {
        estimate += 0.5 * node.weight * (top.k_min + top.k_max);
        used += error;
        done += node.weight;
        continue;
      }
      if (node.left < 0) {
        const double exact = leaf_sum(node);
        estimate += exact;
        lower += exact - node.weight * top.k_min;
        done += node.weight;
        continue;
      }
      const Entry left = entry(node.left);
      const Entry right = entry(node.right);
      lower += nodes[static_cast<std::size_t>(node.left)].weight * left.k_min +
               nodes[static_cast<std::size_t>(node.right)].weight * right.k_min -
               node.weight * top.k_min;
      // The nearer child (larger K_max) is visited first: it raises the lower bound most.
      if (left.k_max >= right.k_max) {
        stack_.push_back(right);
        stack_.push_back(left);
      } else {
        stack_.push_back(left);
        stack_.push_back(right);
      }
    }
    return estimate;
  }

  /// Work counters since construction, for measure_tree_work.
  Index nodes_bounded() const { return nodes_bounded_; }
  Index points_summed() const { return points_summed_; }

  /// ½ min_i ‖q − p_i‖² (branch and bound over the tree).
  double half_nearest_squared_distance(const VectorView& query) {
    query_ = query.data();
    double best = std::numeric_limits<double>::infinity();
    nearest_stack_.clear();
    nearest_stack_.push_back(0);
    const auto& nodes = tree_.nodes();
    while (!nearest_stack_.empty()) {
      const Index index = nearest_stack_.back();
      nearest_stack_.pop_back();
      double near = 0.0;
      double far = 0.0;
      tree_.squared_distance_range(index, query_, near, far);
      if (near >= best) continue;
      const KdTree::Node& node = nodes[static_cast<std::size_t>(index)];
      if (node.left < 0) {
        const auto block = tree_.points().middleCols(node.begin, node.end - node.begin);
        best = std::min(best, (block.colwise() - query).colwise().squaredNorm().minCoeff());
        continue;
      }
      nearest_stack_.push_back(node.right);
      nearest_stack_.push_back(node.left);
    }
    return 0.5 * best;
  }

 private:
  struct Entry {
    Index node;
    double k_min;
    double k_max;
  };

  Entry entry(Index node) {
    ++nodes_bounded_;
    double near = 0.0;
    double far = 0.0;
    tree_.squared_distance_range(node, query_, near, far);
    const double top = shift_ - 0.5 * near;
    const double bottom = shift_ - 0.5 * far;
    // K_max rounded up and K_min down where they would be subnormal: still bounds.
    return {node, bottom < kExponentFloor ? 0.0 : std::exp(bottom),
            std::exp(std::max(top, kExponentFloor))};
  }

  double leaf_sum(const KdTree::Node& node) {
    const Index count = node.end - node.begin;
    points_summed_ += count;
    const auto block = tree_.points().middleCols(node.begin, count);
    const Eigen::Map<const Vector> query(query_, block.rows());
    // Into a buffer first: Eigen's exp is vectorised when evaluated into memory.
    terms_.resize(count);
    terms_ = (log_weights_.segment(node.begin, count).array() + shift_ -
              0.5 * (block.colwise() - query).colwise().squaredNorm().transpose().array())
                 .max(kExponentFloor);
    terms_ = terms_.exp();
    return terms_.sum();
  }

  const KdTree& tree_;
  const Vector& log_weights_;  // in the tree's order
  const double tolerance_;
  const double* query_ = nullptr;
  double shift_ = 0.0;
  Index nodes_bounded_ = 0;
  Index points_summed_ = 0;
  std::vector<Entry> stack_;
  std::vector<Index> nearest_stack_;
  Eigen::ArrayXd terms_;
};

Vector log_weights_in_tree_order(const KdTree& tree, const KernelSumReference& reference) {
  Vector log_weights(reference.size());
  for (Index k = 0; k < reference.size(); ++k) {
    log_weights(k) = reference.log_weights(tree.order()[static_cast<std::size_t>(k)]);
  }
  return log_weights;
}

}  // namespace

TreeWork measure_tree_work(const KdTree& tree, const KernelSumReference& reference,
                           const MatrixView& queries, double relative_tolerance) {
  const Vector log_weights = log_weights_in_tree_order(tree, reference);
  BoundedSum bounded(tree, log_weights, relative_tolerance);
  for (Index j = 0; j < queries.cols(); ++j) bounded.sum(queries.col(j), 0.0);
  const double count = static_cast<double>(std::max<Index>(queries.cols(), 1));
  return {static_cast<double>(bounded.nodes_bounded()) / count,
          static_cast<double>(bounded.points_summed()) / count};
}

Vector tree_log_kernel_sums(const KdTree& tree, const KernelSumReference& reference,
                            const MatrixView& queries, double relative_tolerance, int threads) {
  const Vector log_weights = log_weights_in_tree_order(tree, reference);
  const Index m = queries.cols();
  Vector result(m);
  parallel_for(threads, (m + kQueryBlock - 1) / kQueryBlock, [&](Index block) {
    BoundedSum bounded(tree, log_weights, relative_tolerance);
    const Index end = std::min(m, (block + 1) * kQueryBlock);
    for (Index j = block * kQueryBlock; j < end; ++j) {
      const auto query = queries.col(j);
      const double plain = bounded.sum(query, 0.0);
      if (plain >= kSmallestTrustedSum) {
        result(j) = std::log(plain);
        continue;
      }
      // Far from every point: measure the terms from the nearest one, whose term is then ŵ_i.
      const double shift = bounded.half_nearest_squared_distance(query);
      const double shifted = bounded.sum(query, shift);
      result(j) = shifted >= kSmallestTrustedSum ? std::log(shifted) - shift
                                                 : reference.log_space_sum(query);
    }
  });
  return result;
}

}  // namespace cdens

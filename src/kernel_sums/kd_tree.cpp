#include "kernel_sums/kd_tree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace cdens {

KdTree::KdTree(const MatrixView& points, const VectorView& weights, Index leaf_size) {
  const Index n = points.cols();
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index{0});
  // A binary tree with leaves of at least leaf_size / 2 points has fewer than 4n / leaf_size
  // nodes.
  nodes_.reserve(static_cast<std::size_t>(4 * n / std::max<Index>(leaf_size, 1) + 1));
  lower_.resize(points.rows(), 0);
  upper_.resize(points.rows(), 0);
  build(0, n, std::max<Index>(leaf_size, 1), order, points);
  const Index node_count = static_cast<Index>(nodes_.size());
  lower_.conservativeResize(points.rows(), node_count);
  upper_.conservativeResize(points.rows(), node_count);
  points_.resize(points.rows(), n);
  weights_.resize(n);
  for (Index k = 0; k < n; ++k) {
    points_.col(k) = points.col(order[static_cast<std::size_t>(k)]);
    weights_(k) = weights(order[static_cast<std::size_t>(k)]);
  }
  order_ = std::move(order);
  for (auto& node : nodes_) node.weight = weights_.segment(node.begin, node.end - node.begin).sum();
}

Index KdTree::build(Index begin, Index end, Index leaf_size, std::vector<Index>& order,
                    const MatrixView& points) {
  const Index d = points.rows();
  const Index index = static_cast<Index>(nodes_.size());
  nodes_.push_back(Node{begin, end, -1, -1, 0.0});
  if (lower_.cols() <= index) {
    const Index grown = std::max<Index>(2 * lower_.cols(), 16);
    lower_.conservativeResize(d, grown);
    upper_.conservativeResize(d, grown);
  }
  Vector low = points.col(order[static_cast<std::size_t>(begin)]);
  Vector high = low;
  for (Index k = begin + 1; k < end; ++k) {
    const auto point = points.col(order[static_cast<std::size_t>(k)]);
    low = low.cwiseMin(point);
    high = high.cwiseMax(point);
  }
  lower_.col(index) = low;
  upper_.col(index) = high;
  Index widest = 0;
  const double extent = (high - low).maxCoeff(&widest);
  if (end - begin <= leaf_size) return index;
  // A box of equal points (tied data) is still split, at any place, so that every leaf holds at
  // most leaf_size points: the block paths size their GEMMs by it.
  const Index middle = begin + (end - begin) / 2;
  if (extent > 0.0) {
    std::nth_element(order.begin() + begin, order.begin() + middle, order.begin() + end,
                     [&](Index a, Index b) { return points(widest, a) < points(widest, b); });
  }
  const Index left = build(begin, middle, leaf_size, order, points);
  const Index right = build(middle, end, leaf_size, order, points);
  nodes_[static_cast<std::size_t>(index)].left = left;
  nodes_[static_cast<std::size_t>(index)].right = right;
  return index;
}

void KdTree::squared_distance_range(Index node, const double* query, double& nearest,
                                    double& farthest) const {
  const Index d = lower_.rows();
  const double* low = lower_.col(node).data();
  const double* high = upper_.col(node).data();
  nearest = 0.0;
  farthest = 0.0;
  for (Index k = 0; k < d; ++k) {
    const double below = low[k] - query[k];   // > 0 when the query is below the box
    const double above = query[k] - high[k];  // > 0 when it is above
    const double outside = std::max({below, above, 0.0});
    nearest += outside * outside;
    const double far = std::max(std::abs(below), std::abs(above));
    farthest += far * far;
  }
}

}  // namespace cdens

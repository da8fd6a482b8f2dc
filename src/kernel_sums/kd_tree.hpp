#pragma once
// A k-d tree over weighted points with a bounding box and a weight per node (Bentley 1975;
// boxes as in Gray & Moore 2001, "N-body problems in statistical learning").

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

class KdTree {
 public:
  struct Node {
    Index begin = 0;  ///< first point of the node, in the tree's order
    Index end = 0;    ///< one past its last point
    Index left = -1;  ///< children (−1 for a leaf)
    Index right = -1;
    double weight = 0;  ///< Σ of the node's weights
  };

  /// Splits the points (d × n) at the median of the widest side of each box until a node holds
  /// at most `leaf_size` points. Points and weights are copied in the tree's order.
  KdTree(const MatrixView& points, const VectorView& weights, Index leaf_size = 32);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Matrix& points() const { return points_; }    ///< d × n, in the tree's order
  const Vector& weights() const { return weights_; }  ///< in the tree's order
  /// order()[k] is the column of the input that is the tree's point k.
  const std::vector<Index>& order() const { return order_; }
  const Matrix& lower() const { return lower_; }  ///< d × nodes: the boxes' lower corners
  const Matrix& upper() const { return upper_; }  ///< d × nodes: their upper corners

  /// The smallest and the largest squared distance from `query` to the box of `node`.
  void squared_distance_range(Index node, const double* query, double& nearest,
                              double& farthest) const;

 private:
  Index build(Index begin, Index end, Index leaf_size, std::vector<Index>& order,
              const MatrixView& points);

  std::vector<Node> nodes_;
  std::vector<Index> order_;
  Matrix points_;
  Vector weights_;
  Matrix lower_;
  Matrix upper_;
};

}  // namespace cdens

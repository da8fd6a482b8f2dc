#include "kernel_sums/kernel_neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace cdens {

KernelNeighbours::KernelNeighbours(const MatrixView& points, const VectorView& weights)
    : tree_(points, weights), log_weights_(tree_.weights().array().log()) {
  log_node_weights_.reserve(tree_.nodes().size());
  for (const KdTree::Node& node : tree_.nodes()) log_node_weights_.push_back(std::log(node.weight));
}

void KernelNeighbours::search(const double* query, double tolerance, Found& found) const {
  found.positions.clear();
  found.log_terms.clear();
  found.weights.clear();
  const auto& nodes = tree_.nodes();
  const Matrix& points = tree_.points();
  const Index d = points.rows();
  // The frontier: (log bound, node), a max-heap on the bound (ties by node index, so the order of
  // the search is fixed).
  using Entry = std::pair<double, Index>;
  std::vector<Entry> frontier;
  const auto push = [&](Index node) -> double {
    if (!(nodes[static_cast<std::size_t>(node)].weight > 0.0)) return -INFINITY;
    double nearest = 0.0;
    double farthest = 0.0;
    tree_.squared_distance_range(node, query, nearest, farthest);
    const double bound = log_node_weights_[static_cast<std::size_t>(node)] - 0.5 * nearest;
    frontier.emplace_back(bound, node);
    std::push_heap(frontier.begin(), frontier.end());
    return bound;
  };
  push(0);
  // Sums relative to e^shift: the largest term found so far (set by the first leaf opened).
  double shift = NAN;
  double found_sum = 0.0;     // Σ e^{term − shift} over the points found
  double frontier_sum = 0.0;  // Σ e^{bound − shift} over the frontier
  const auto rescale = [&](double new_shift) {
    const double factor = std::isnan(shift) ? 0.0 : std::exp(shift - new_shift);
    found_sum *= factor;
    if (factor != 1.0) {
      for (double& weight : found.weights) weight *= factor;
    }
    shift = new_shift;
    frontier_sum = 0.0;  // recomputed from the frontier: its running sum may have drifted
    for (const Entry& entry : frontier) frontier_sum += std::exp(entry.first - shift);
  };
  while (!frontier.empty()) {
    if (!std::isnan(shift) && frontier_sum <= tolerance * found_sum) {
      rescale(shift);
      if (frontier_sum <= tolerance * found_sum) break;
    }
    std::pop_heap(frontier.begin(), frontier.end());
    const auto [bound, index] = frontier.back();
    frontier.pop_back();
    if (!std::isnan(shift)) frontier_sum -= std::exp(bound - shift);
    const KdTree::Node& node = nodes[static_cast<std::size_t>(index)];
    if (node.left >= 0) {
      for (const Index child : {node.left, node.right}) {
        const double child_bound = push(child);
        if (!std::isnan(shift)) frontier_sum += std::exp(child_bound - shift);
      }
      continue;
    }
    double largest = -INFINITY;
    const std::size_t first_found = found.log_terms.size();
    for (Index i = node.begin; i < node.end; ++i) {
      if (log_weights_(i) == -INFINITY) continue;
      double squared = 0.0;
      for (Index r = 0; r < d; ++r) {
        const double difference = query[r] - points(r, i);
        squared += difference * difference;
      }
      const double term = log_weights_(i) - 0.5 * squared;
      found.positions.push_back(i);
      found.log_terms.push_back(term);
      largest = std::max(largest, term);
    }
    // A term far above the shift would overflow the sums relative to it: shift to it first.
    if (largest > -INFINITY && (std::isnan(shift) || largest > shift + 300.0)) rescale(largest);
    // The leaf's weights e^{term − shift} by Eigen's vectorised exp, on an array of its own:
    // Eigen's own aligned allocation, so that which terms take the vector path and which the
    // scalar one depends on the leaf's count alone, not on where the found list lies in memory
    // (a map of it gave answers that changed with the heap).
    const auto added = static_cast<Index>(found.log_terms.size() - first_found);
    Eigen::ArrayXd weights =
        Eigen::Map<const Eigen::ArrayXd>(found.log_terms.data() + first_found, added) - shift;
    weights = weights.exp();
    found.weights.insert(found.weights.end(), weights.begin(), weights.end());
    found_sum += weights.sum();
  }
}

}  // namespace cdens

#include "methods/stacking_weights.hpp"

#include <cmath>
#include <string>

#include "cdens/core/types.hpp"

namespace cdens {
namespace {

constexpr int kMaxIterations = 20000;
constexpr double kTolerance = 1e-12;

/// What the pairs of every rank share: their count n and the communicator that sums over them.
struct PairsOfRanks {
  double count;
  const Communicator& communicator;
};

/// Σ_i s_i v_i with the pairs' shares s (sum 1; empty: equal shares, the plain mean) over every
/// rank's pairs.
double mean_over_pairs(const Vector& values, const Vector& shares, const PairsOfRanks& pairs) {
  double sum = shares.size() > 0 ? shares.dot(values) : values.sum();
  pairs.communicator.allreduce_sum(&sum, 1);
  return shares.size() > 0 ? sum : sum / pairs.count;
}

/// EM for the weights of the columns where `active` holds, from equal weights: the
/// responsibilities r_ic ∝ a_c p_ic, then a_c = Σ_i s_i r_ic (the pairs' shares s; empty:
/// the mean), until the objective gains less than kTolerance.
StackingWeights maximise(const Matrix& densities, const std::vector<bool>& active,
                         double log_offset, const Vector& shares, const PairsOfRanks& pairs) {
  const Index c_count = densities.cols();
  Vector weights = Vector::Zero(c_count);
  Index active_count = 0;
  for (Index c = 0; c < c_count; ++c) active_count += active[static_cast<std::size_t>(c)];
  for (Index c = 0; c < c_count; ++c) {
    if (active[static_cast<std::size_t>(c)]) weights(c) = 1.0 / static_cast<double>(active_count);
  }
  StackingWeights result{weights, -INFINITY, 0};
  for (; result.iterations < kMaxIterations; ++result.iterations) {
    const Vector pooled = densities * weights;  // Σ_c a_c p_ic, each p scaled by e^{−offset_i}
    const double score = mean_over_pairs(pooled.array().log().matrix(), shares, pairs) + log_offset;
    const bool converged = score - result.mean_log_score < kTolerance;
    result.weights = weights;
    result.mean_log_score = score;
    if (converged) break;
    Vector responsibilities = shares.size() > 0
                                  ? Vector(densities.transpose() * shares.cwiseQuotient(pooled))
                                  : Vector(densities.transpose() * pooled.cwiseInverse());
    pairs.communicator.allreduce_sum(responsibilities.data(),
                                     static_cast<std::size_t>(responsibilities.size()));
    weights = shares.size() > 0 ? Vector(weights.cwiseProduct(responsibilities))
                                : Vector(weights.cwiseProduct(responsibilities) / pairs.count);
  }
  return result;
}

}  // namespace

StackingWeights stacking_weights(const Matrix& log_densities, const Vector& pair_weights,
                                 const Communicator& communicator) {
  const PairsOfRanks pairs{static_cast<double>(communicator.sum_counts(log_densities.rows())),
                           communicator};
  agree_on_errors(communicator, [&] {
    if (pairs.count == 0.0 || log_densities.cols() == 0 || !log_densities.allFinite()) {
      throw InvalidArgument("stacking needs finite held-out log-densities of at least one pair");
    }
    if (pair_weights.size() > 0 && pair_weights.size() != log_densities.rows()) {
      throw InvalidArgument("stacking got " + std::to_string(pair_weights.size()) +
                            " pair weights for " + std::to_string(log_densities.rows()) + " pairs");
    }
  });
  double weight_sum = pair_weights.sum();
  communicator.allreduce_sum(&weight_sum, 1);
  const Vector shares = pair_weights.size() > 0 ? Vector(pair_weights / weight_sum) : Vector();
  // p_ic e^{−max_c L_ic}: each pair's largest density is 1, so nothing under- or overflows; the
  // pair's offset returns in the objective.
  const Vector offsets = log_densities.rowwise().maxCoeff();
  const Matrix densities = (log_densities.colwise() - offsets).array().exp();
  std::vector<bool> active(static_cast<std::size_t>(log_densities.cols()), true);
  const double log_offset = mean_over_pairs(offsets, shares, pairs);
  StackingWeights result = maximise(densities, active, log_offset, shares, pairs);
  Index best = 0;
  result.weights.maxCoeff(&best);
  bool pruned = false;
  for (Index c = 0; c < densities.cols(); ++c) {
    if (c != best && result.weights(c) < kStackingPruneBelow) {
      active[static_cast<std::size_t>(c)] = false;
      pruned = true;
    }
  }
  if (pruned) {
    const int first_iterations = result.iterations;
    result = maximise(densities, active, log_offset, shares, pairs);
    result.iterations += first_iterations;
  }
  return result;
}

}  // namespace cdens

#include "density/rwbs.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {
namespace {

double checked(double value) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw InvalidArgument("RWBS: the cost must be finite and non-negative, got " +
                          std::to_string(value));
  }
  return value;
}

Vector random_point(const Vector& lower, const Vector& upper, Rng& rng) {
  Vector u(lower.size());
  for (Index i = 0; i < u.size(); ++i) u(i) = lower(i) + (upper(i) - lower(i)) * rng.uniform();
  return u;
}

}  // namespace

RwbsResult rwbs_minimize(const std::function<double(const Vector&)>& cost, const Vector& lower,
                         const Vector& upper, const RwbsOptions& options) {
  const auto batch = [&](const Matrix& points) {
    Vector costs(points.cols());
    for (Index j = 0; j < points.cols(); ++j) costs(j) = cost(points.col(j));
    return costs;
  };
  return rwbs_minimize_batches(batch, lower, upper, options);
}

RwbsResult rwbs_minimize_batches(const RwbsBatchCost& cost, const Vector& lower,
                                 const Vector& upper, const RwbsOptions& options) {
  if (lower.size() == 0 || lower.size() != upper.size()) {
    throw InvalidArgument("RWBS: the box bounds must be non-empty and of equal length");
  }
  if (!lower.allFinite() || !upper.allFinite() || !(lower.array() <= upper.array()).all()) {
    throw InvalidArgument("RWBS: the box bounds must be finite with lower ≤ upper");
  }
  if (options.population < 2 || options.generations < 1 || options.iterations < 0) {
    throw InvalidArgument("RWBS: needs population ≥ 2, generations ≥ 1 and iterations ≥ 0");
  }
  const std::size_t p_s = static_cast<std::size_t>(options.population);
  Rng rng(options.seed, options.stream);
  RwbsResult result;
  std::vector<Vector> members(p_s);
  std::vector<double> costs(p_s);
  const auto evaluate = [&](const Matrix& points) {
    const Vector values = cost(points);
    if (values.size() != points.cols()) {
      throw InvalidArgument("RWBS: the batch cost returned " + std::to_string(values.size()) +
                            " values for " + std::to_string(points.cols()) + " points");
    }
    result.evaluations += points.cols();
    for (Index j = 0; j < values.size(); ++j) checked(values(j));
    return values;
  };
  for (int generation = 0; generation < options.generations; ++generation) {
    // Generation initialisation: elitism keeps the previous best as member 1.
    std::size_t first_random = 0;
    if (generation > 0) {
      members[0] = result.point;
      costs[0] = result.value;
      first_random = 1;
    }
    Matrix fresh(lower.size(), static_cast<Index>(p_s - first_random));
    for (Index j = 0; j < fresh.cols(); ++j) fresh.col(j) = random_point(lower, upper, rng);
    const Vector fresh_costs = evaluate(fresh);
    for (Index j = 0; j < fresh.cols(); ++j) {
      members[first_random + static_cast<std::size_t>(j)] = fresh.col(j);
      costs[first_random + static_cast<std::size_t>(j)] = fresh_costs(j);
    }
    std::vector<double> delta(p_s, 1.0 / static_cast<double>(p_s));  // δ_i(0) = 1/P_S
    for (int t = 0; t < options.iterations; ++t) {
      // Step 1: boosting.
      std::size_t best = 0, worst = 0;
      double total = 0.0;
      for (std::size_t i = 0; i < p_s; ++i) {
        if (costs[i] < costs[best]) best = i;
        if (costs[i] > costs[worst]) worst = i;
        total += costs[i];
      }
      if (total == 0.0 || costs[best] == costs[worst]) break;  // every member is equally good
      double xi = 0.0;
      for (std::size_t i = 0; i < p_s; ++i) xi += delta[i] * costs[i] / total;  // ξ_t
      const double mu = xi / (1.0 - xi);                                        // μ_t
      double delta_sum = 0.0;
      for (std::size_t i = 0; i < p_s; ++i) {
        const double normalized = costs[i] / total;  // J̄_i
        delta[i] *= mu <= 1.0 ? std::pow(mu, normalized) : std::pow(mu, 1.0 - normalized);
        delta_sum += delta[i];
      }
      for (auto& d : delta) d /= delta_sum;
      // Step 2: the convex combination and its mirror image about the best member.
      Matrix candidates(lower.size(), 2);
      candidates.col(0).setZero();
      for (std::size_t i = 0; i < p_s; ++i) candidates.col(0) += delta[i] * members[i];
      candidates.col(1) = (2.0 * members[best] - candidates.col(0)).cwiseMax(lower).cwiseMin(upper);
      const Vector candidate_costs = evaluate(candidates);
      const Index better = candidate_costs(0) <= candidate_costs(1) ? 0 : 1;
      members[worst] = candidates.col(better);
      costs[worst] = candidate_costs(better);
    }
    std::size_t best = 0;
    for (std::size_t i = 1; i < p_s; ++i) {
      if (costs[i] < costs[best]) best = i;
    }
    result.point = members[best];
    result.value = costs[best];
  }
  return result;
}

}  // namespace cdens

#include "cdens/core/sampling_plan.hpp"

#include <algorithm>

#include "cdens/core/error.hpp"
#include "cdens/core/rng.hpp"
#include "core/random_streams.hpp"

namespace cdens {

SamplingPlan draw_sampling_plan(Index n, Index n_centers, int folds, std::uint64_t seed) {
  if (n_centers < 1) throw InvalidArgument("the number of basis centres must be at least 1");
  Rng rng(seed, random_stream::kSamplingPlan);
  SamplingPlan plan;
  if (n_centers >= n) {
    for (Index i = 0; i < n; ++i) plan.center_order.push_back(i);
  } else {
    plan.center_order = rng.permutation(n);
  }
  const auto b = static_cast<std::size_t>(std::min(n_centers, n));
  plan.centers.assign(plan.center_order.begin(), plan.center_order.begin() + b);
  if (folds == 0) return plan;
  plan.folds.emplace(n, folds, rng);
  const std::vector<int> fold_of = plan.folds->fold_of();
  for (int k = 0; k < plan.folds->n_folds(); ++k) {
    std::vector<Index> centers;
    for (const Index i : plan.center_order) {
      if (centers.size() == b) break;
      if (fold_of[static_cast<std::size_t>(i)] != k) centers.push_back(i);
    }
    plan.fold_centers.push_back(std::move(centers));
  }
  return plan;
}

KFold draw_folds(Index n, int folds, std::uint64_t seed) {
  Rng rng(seed, random_stream::kSamplingPlan);
  return KFold(n, folds, rng);
}

}  // namespace cdens

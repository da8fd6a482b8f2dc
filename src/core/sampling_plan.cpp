#include "core/sampling_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "core/random_streams.hpp"
#include "core/sampling_plan_draws.hpp"
#include "io/text.hpp"

namespace cdens {

SamplingPlan draw_sampling_plan(Index n, Index n_centers, int folds, std::uint64_t seed) {
  Rng rng(seed, random_stream::kSamplingPlan);
  SamplingPlan plan;
  plan.center_order = draw_center_order<Index>(n, n_centers, rng);
  const Index b = std::min(n_centers, n);
  plan.centers.assign(plan.center_order.begin(), plan.center_order.begin() + b);
  if (folds == 0) return plan;
  plan.folds.emplace(n, folds, rng);
  const std::vector<int> fold_of = plan.folds->fold_of();
  for (int k = 0; k < plan.folds->n_folds(); ++k) {
    std::vector<Index> centers;
    for (const Index p : positions_outside_fold(plan.center_order, fold_of, k, b)) {
      centers.push_back(plan.center_order[static_cast<std::size_t>(p)]);
    }
    plan.fold_centers.push_back(std::move(centers));
  }
  return plan;
}

KFold draw_folds(Index n, int folds, std::uint64_t seed) {
  Rng rng(seed, random_stream::kSamplingPlan);
  return KFold(n, folds, rng);
}

HoldoutSplit draw_holdout_split(Index n, double fraction, std::uint64_t seed,
                                std::string_view what) {
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw InvalidArgument(std::string(what) + " must lie strictly between 0 and 1, got " +
                          format_short(fraction));
  }
  const auto held_out = static_cast<Index>(std::llround(fraction * static_cast<double>(n)));
  if (held_out < 1 || held_out >= n) {
    throw InvalidArgument(std::string(what) + " " + format_short(fraction) + " of " +
                          std::to_string(n) + " rows leaves " +
                          (held_out < 1 ? "no row to evaluate on" : "no row to fit"));
  }
  const std::vector<Index> order = Rng(seed, random_stream::kHoldOut).permutation(n);
  HoldoutSplit split;
  split.held_out_rows.assign(order.begin(), order.begin() + held_out);
  split.fit_rows.assign(order.begin() + held_out, order.end());
  std::sort(split.held_out_rows.begin(), split.held_out_rows.end());
  std::sort(split.fit_rows.begin(), split.fit_rows.end());
  return split;
}

}  // namespace cdens

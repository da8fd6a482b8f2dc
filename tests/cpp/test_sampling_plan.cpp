// The sampling plan of the least-squares fits: centres from a permutation, folds after it from
// the same stream, and the centres of every fold's estimator kept out of that fold; and the
// hold-out split of `cdens fit --holdout`.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "core/sampling_plan.hpp"
#include "parallel/sharded_sampling_plan.hpp"
#include "support.hpp"

namespace cdens {
namespace {

TEST(SamplingPlan, CentresAreThePermutationsFirstPairsAndFoldCentresAvoidTheirFold) {
  const Index n = 53, n_centers = 20;
  const SamplingPlan plan = draw_sampling_plan(n, n_centers, 4, 11);
  std::vector<Index> sorted = plan.center_order;
  std::sort(sorted.begin(), sorted.end());
  for (Index i = 0; i < n; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(plan.centers,
            std::vector<Index>(plan.center_order.begin(), plan.center_order.begin() + n_centers));
  ASSERT_TRUE(plan.folds.has_value());
  ASSERT_EQ(plan.fold_centers.size(), 4u);
  const std::vector<int> fold_of = plan.folds->fold_of();
  for (int k = 0; k < 4; ++k) {
    // The first n_centers pairs of the order that lie outside fold k, in that order.
    std::vector<Index> expected;
    for (const Index i : plan.center_order) {
      if (fold_of[static_cast<std::size_t>(i)] != k &&
          static_cast<Index>(expected.size()) < n_centers) {
        expected.push_back(i);
      }
    }
    EXPECT_EQ(plan.fold_centers[static_cast<std::size_t>(k)], expected) << "fold " << k;
  }
}

TEST(SamplingPlan, AllPairsAsCentresDrawNoPermutationSoTheFoldsAreDrawFolds) {
  const SamplingPlan plan = draw_sampling_plan(30, 30, 5, 7);
  for (Index i = 0; i < 30; ++i) EXPECT_EQ(plan.center_order[static_cast<std::size_t>(i)], i);
  const KFold folds = draw_folds(30, 5, 7);
  EXPECT_EQ(plan.folds->fold_of(), folds.fold_of());
  // Fewer pairs than requested centres: every fold's estimator keeps all pairs outside it.
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(plan.fold_centers[static_cast<std::size_t>(k)], folds.train(k));
  }
}

TEST(SamplingPlan, TheSeedDecidesThePlan) {
  const SamplingPlan a = draw_sampling_plan(100, 10, 5, 3);
  const SamplingPlan b = draw_sampling_plan(100, 10, 5, 3);
  const SamplingPlan c = draw_sampling_plan(100, 10, 5, 4);
  EXPECT_EQ(a.center_order, b.center_order);
  EXPECT_EQ(a.folds->fold_of(), b.folds->fold_of());
  EXPECT_NE(a.center_order, c.center_order);
}

TEST(SamplingPlan, NoFoldsWithoutCrossValidationAndBadCountsRefused) {
  const SamplingPlan plan = draw_sampling_plan(12, 5, 0, 1);
  EXPECT_FALSE(plan.folds.has_value());
  EXPECT_TRUE(plan.fold_centers.empty());
  EXPECT_EQ(plan.centers.size(), 5u);
  EXPECT_THROW(draw_sampling_plan(12, 0, 5, 1), InvalidArgument);
  EXPECT_THROW(draw_sampling_plan(12, 5, 1, 1), InvalidArgument);
  EXPECT_THROW(draw_sampling_plan(12, 5, 13, 1), InvalidArgument);
  EXPECT_THROW(draw_folds(12, 1, 1), InvalidArgument);
}

TEST(SamplingPlan, TheShardedDrawIsTheFullPlanInFewerBytes) {
  // draw_sharded_sampling_plan draws with 4-byte permutations and fold labels instead of
  // draw_sampling_plan's 8-byte permutation and fold lists: the same plan, entry for entry.
  struct Case {
    Index n, n_centers;
    int folds;
    std::uint64_t seed;
  };
  for (const Case& c : {Case{53, 20, 4, 11}, Case{1000, 100, 5, 0}, Case{30, 30, 5, 7},
                        Case{12, 5, 0, 1}, Case{200, 150, 10, 3}, Case{7, 100, 7, 2}}) {
    const SamplingPlan full = draw_sampling_plan(c.n, c.n_centers, c.folds, c.seed);
    const ShardedSamplingPlan sharded =
        draw_sharded_sampling_plan(c.n, c.n_centers, c.folds, c.seed, local_communicator());
    const auto in_order = [&](const std::vector<Index>& positions) {
      std::vector<Index> rows;
      for (const Index p : positions) rows.push_back(sharded.candidate_order[p]);
      return rows;
    };
    const std::vector<Index>& order = sharded.candidate_order;
    EXPECT_EQ(order, std::vector<Index>(full.center_order.begin(),
                                        full.center_order.begin() + order.size()));
    EXPECT_EQ(std::vector<Index>(order.begin(), order.begin() + sharded.center_count),
              full.centers);
    ASSERT_EQ(sharded.fold_centers.size(), full.fold_centers.size());
    for (std::size_t k = 0; k < full.fold_centers.size(); ++k) {
      EXPECT_EQ(in_order(sharded.fold_centers[k]), full.fold_centers[k]) << "fold " << k;
    }
    if (c.folds == 0) {
      EXPECT_TRUE(sharded.local_folds.empty());
      continue;
    }
    const std::vector<int> fold_of = full.folds->fold_of();
    EXPECT_EQ(sharded.local_folds, std::vector<std::int32_t>(fold_of.begin(), fold_of.end()));
    for (int k = 0; k < c.folds; ++k) {
      EXPECT_EQ(sharded.fold_sizes[static_cast<std::size_t>(k)],
                static_cast<Index>(full.folds->test(k).size()));
    }
  }
}

TEST(SamplingPlan, APermutationRefusesEntriesTooNarrowForIt) {
  Rng rng(1);
  EXPECT_EQ(rng.permutation<std::uint8_t>(256).size(), 256u);
  EXPECT_THROW(rng.permutation<std::uint8_t>(257), InvalidArgument);
}

TEST(HoldoutSplit, HoldsOutTheRoundedFractionFromTheFrontOfTheSeedsPermutation) {
  const Index n = 37;
  const HoldoutSplit split = draw_holdout_split(n, 0.3, 8);
  // round(0.3 · 37) = 11 rows held out: the first 11 of stream 1's permutation, in order.
  std::vector<Index> order = Rng(8, 1).permutation(n);
  std::vector<Index> expected_held_out(order.begin(), order.begin() + 11);
  std::vector<Index> expected_fit(order.begin() + 11, order.end());
  std::sort(expected_held_out.begin(), expected_held_out.end());
  std::sort(expected_fit.begin(), expected_fit.end());
  EXPECT_EQ(split.held_out_rows, expected_held_out);
  EXPECT_EQ(split.fit_rows, expected_fit);
  std::vector<Index> all = split.fit_rows;
  all.insert(all.end(), split.held_out_rows.begin(), split.held_out_rows.end());
  std::sort(all.begin(), all.end());
  for (Index i = 0; i < n; ++i) EXPECT_EQ(all[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(draw_holdout_split(n, 0.3, 8).held_out_rows, split.held_out_rows);
  EXPECT_NE(draw_holdout_split(n, 0.3, 9).held_out_rows, split.held_out_rows);
}

TEST(HoldoutSplit, RefusesFractionsOutsideTheOpenIntervalAndEmptyPartsNamingTheFraction) {
  EXPECT_EQ(test::message_of<InvalidArgument>([] { draw_holdout_split(10, 1.5, 1, "--holdout"); }),
            "--holdout must lie strictly between 0 and 1, got 1.5");
  EXPECT_THROW(draw_holdout_split(10, 0.0, 1), InvalidArgument);
  EXPECT_EQ(test::message_of<InvalidArgument>([] { draw_holdout_split(10, 0.01, 1); }),
            "the hold-out fraction 0.01 of 10 rows leaves no row to evaluate on");
  EXPECT_EQ(test::message_of<InvalidArgument>([] { draw_holdout_split(10, 0.99, 1); }),
            "the hold-out fraction 0.99 of 10 rows leaves no row to fit");
}

}  // namespace
}  // namespace cdens

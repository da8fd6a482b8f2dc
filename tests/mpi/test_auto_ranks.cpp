// auto on K ranks, each holding a shard of the pairs, against the single-process auto of all the
// pairs with the same seed: the same folds (rank 0's draw for the global n), every candidate's
// fold fits as fits of every rank's training pairs, each rank's held-out pairs scored by the fold
// model (KCDE's across the ranks, log_pdf_of_ranks), the table and the stacking weights from sums
// over the ranks, the time budget by rank 0's clock.
//
// Tolerances. The candidates' fits agree with one process's within their own tolerances
// (docs/distributed.md): KCDE's search decides its bandwidths within kSearchTolerance (1e-4)
// relative, and a held-out log-density moves with them by at most about ten times that
// (test_kcde_ranks.cpp). The table's mean NLLs are means of those log-densities: within
// kScoreTolerance = 1e-3 nats. The stacking weights maximise a concave mean of the same
// log-densities; a perturbation δ of the objective moves a weight by about δ over the curvature,
// which is of order 1 here (weights of order 0.1–1): within kScoreTolerance too. Every status,
// the chosen candidate and the pool's members must be the same; the model's log-densities at
// test points within kScoreTolerance.

#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "cdens/conditional/auto.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

constexpr double kScoreTolerance = 1e-3;

/// auto with `options` on every sharding of `pairs` against the single-process auto, each
/// model queried at `queries` on every rank.
void expect_same_selection(const test::PairSample& pairs, const test::PairSample& queries,
                           const AutoOptions& options, const std::string& name) {
  const ConditionalModel single = fit_auto(pairs.x, pairs.y, options, FitContext{});
  const MethodSelection& expected = *single.report.method_selection;
  const Vector expected_log_pdf = single.mixture.log_pdf(queries.x, queries.y);
  for (const auto& cut : shardings(pairs.x.cols())) {
    const std::vector<Index> rows = rows_of_rank(cut);
    const ConditionalModel model =
        fit_auto(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options,
                 FitContext{world(), silent_progress(), {}, {}, true});
    const MethodSelection& table = *model.report.method_selection;
    ASSERT_EQ(table.candidates.size(), expected.candidates.size()) << name;
    EXPECT_EQ(table.chosen, expected.chosen) << name;
    EXPECT_EQ(table.scored_pairs, expected.scored_pairs) << name;
    EXPECT_EQ(table.validation, expected.validation) << name;
    double scores = 0.0;
    double weights = 0.0;
    for (std::size_t c = 0; c < table.candidates.size(); ++c) {
      const CandidateScore& got = table.candidates[c];
      const CandidateScore& want = expected.candidates[c];
      // A status may end in the seconds the selection had taken: rank 0's on every rank.
      EXPECT_EQ(got.status.substr(0, got.status.find(" (")),
                want.status.substr(0, want.status.find(" (")))
          << name << ", " << want.candidate;
      double seconds[2] = {got.seconds, -got.seconds};
      world().allreduce_max(seconds, 2);
      EXPECT_EQ(seconds[0], -seconds[1]) << name << ", " << want.candidate;
      EXPECT_EQ(got.validation, want.validation) << name << ", " << want.candidate;
      EXPECT_EQ(got.weight > 0.0, want.weight > 0.0) << name << ", " << want.candidate;
      if (!want.scored()) continue;
      scores = std::max({scores, std::abs(got.mean_nll - want.mean_nll),
                         std::abs(got.standard_error - want.standard_error)});
      weights = std::max(weights, std::abs(got.weight - want.weight));
    }
    const double log_pdf =
        (model.mixture.log_pdf(queries.x, queries.y) - expected_log_pdf).cwiseAbs().maxCoeff();
    if (world().size() == 1) {
      EXPECT_EQ(scores + weights + log_pdf, 0.0) << name << ": one rank is one process";
    }
    EXPECT_LE(scores, kScoreTolerance) << name;
    EXPECT_LE(weights, kScoreTolerance) << name;
    EXPECT_LE(log_pdf, kScoreTolerance) << name;
    double largest[3] = {scores, weights, log_pdf};
    world().allreduce_max(largest, 3);
    if (world().rank() == 0) {
      std::cout << "[ ranks " << world().size() << " ] " << name
                << ": largest difference from one process of the mean NLLs " << largest[0]
                << ", of the weights " << largest[1] << ", of the log-densities " << largest[2]
                << std::endl;
    }
  }
}

TEST(AutoRanks, TheDefaultCandidatesByFolds) {
  // The default candidates, scored by 5-fold refits (n ≤ 1,000): the line, LSCDE, KCDE around
  // the line, without a trend, around the Gaussian-process trend and on Yeo–Johnson's y.
  test::PairSample pairs = test::sine_sample(120, 2, 51);
  pairs.y = pairs.y.array().exp().matrix();
  test::PairSample queries = test::sine_sample(60, 2, 52);
  queries.y = queries.y.array().exp().matrix();
  AutoOptions options;
  options.seed = 5;
  expect_same_selection(pairs, queries, options, "auto, default candidates, 120 pairs, 5 folds");
}

TEST(AutoRanks, LeaveOneOutScores) {
  // Each candidate's own leave-one-out terms: KCDE's criterion's (every rank's held-out pairs
  // split by rank) and the line's (each rank's own); LSCDE by folds.
  const test::PairSample pairs = test::sine_sample(150, 2, 53);
  const test::PairSample queries = test::sine_sample(60, 2, 54);
  AutoOptions options;
  options.seed = 6;
  options.validation = CandidateValidation::leave_one_out;
  options.candidates = "linear,lscde,kcde:trend=linear";
  expect_same_selection(pairs, queries, options, "auto, leave-one-out, 150 pairs");
}

TEST(AutoRanks, TheTimeBudgetIsRankZerosClock) {
  // A budget spent by the first candidate: the others are not run, on every rank alike.
  const test::PairSample pairs = test::sine_sample(80, 2, 55);
  const test::PairSample queries = test::sine_sample(20, 2, 56);
  AutoOptions options;
  options.time_budget = 1e-9;
  options.candidates = "linear,kcde";
  expect_same_selection(pairs, queries, options, "auto, a spent time budget");
}

}  // namespace
}  // namespace cdens

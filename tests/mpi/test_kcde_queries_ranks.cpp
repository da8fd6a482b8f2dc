// Queries of a KCDE model whose rows stay on their ranks (log_pdf_of_ranks): each rank asks for
// the log-densities of its own query pairs, and the kernel sums over every rank's rows answer
// them, against the single-process model of all the rows.
//
// Tolerance. The bandwidths are given, so the two models differ only in sums of another order
// (the standardisation, the marginal weight: ~1e-15). Where every input is continuous both sides
// sum their kernels with the kernel-sum engine, each log-sum within a third of 1e-6 of the exact
// one, so each log-density is within 1e-6 of the exact one (ConditionalMixture::log_pdf) and the
// two within kQueryTolerance = 2e-6 of each other; with a discrete input both sides sum exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/rng.hpp"
#include "conditional/kernel_queries_of_ranks.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::gaussian_process_yeo_johnson_kcde;
using testing_mpi::kernel_stretch;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

constexpr double kQueryTolerance = 2e-6;

/// KCDE with `options` on every sharding of `pairs`, each rank keeping its own rows, queried at
/// this rank's share of `queries` (none on rank 0 when there are others, past one chunk of
/// broadcast queries on the last rank) against the single-process model of every pair.
void expect_single_process_log_densities(const test::PairSample& pairs,
                                         const test::PairSample& queries,
                                         const KcdeOptions& options, const std::string& name) {
  const ConditionalModel single = unnamed_model(fit_kcde(pairs.x, pairs.y, options, FitContext{}));
  const Vector expected = single.mixture.log_pdf(queries.x, queries.y);
  ASSERT_TRUE(expected.allFinite()) << name;
  const int size = world().size();
  const int rank = world().rank();
  // Rank r's queries: from cut(r) to cut(r + 1), rank 0 without any when there are others.
  const auto cut = [&](int r) {
    if (r == size) return queries.x.cols();
    return size == 1 || r == 0 ? Index{0} : queries.x.cols() * (r - 1) / (4 * size);
  };
  const std::vector<Index> own_queries = rows_of_rank(cut);
  for (const auto& rows_cut : shardings(pairs.x.cols())) {
    const std::vector<Index> rows = rows_of_rank(rows_cut);
    const ConditionalModel model =
        unnamed_model(fit_kcde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows),
                               options, FitContext{world(), silent_progress(), {}, {}, true}));
    const Matrix x = gather_samples(queries.x, own_queries);
    const Matrix y = gather_samples(queries.y, own_queries);
    const Vector log_pdf = model.report.rows_of_this_rank
                               ? log_pdf_of_ranks(model.mixture, x, y, world())
                               : model.mixture.log_pdf(x, y);
    double largest = 0.0;
    for (std::size_t j = 0; j < own_queries.size(); ++j) {
      largest = std::max(largest, std::abs(log_pdf(Index(j)) - expected(own_queries[j])));
    }
    if (size == 1) {
      EXPECT_EQ(largest, 0.0) << name << ": one rank is the single process";
    }
    EXPECT_LE(largest, kQueryTolerance) << name;
    world().allreduce_max(&largest, 1);
    if (rank == 0) {
      std::cout << "[ ranks " << size << " ] " << name
                << " (rows on their ranks: " << model.report.rows_of_this_rank
                << "): largest difference of the log-densities from one process " << largest
                << std::endl;
    }
  }
}

TEST(KcdeQueriesRanks, EachRankQueriesTheModelOfEveryRanksRows) {
  // The line's residuals, marginal mixing, and a query far from every pair.
  const test::PairSample pairs = test::sine_sample(400, 2, 31);
  test::PairSample queries = test::sine_sample(4300, 2, 32);
  queries.x.col(4299) << 40.0, -30.0;
  queries.y(0, 4299) = 25.0;
  KcdeOptions options;
  options.bandwidth = {0.4, 0.7, 0.3};
  options.trend = KernelTrend::linear;
  expect_single_process_log_densities(pairs, queries, options,
                                      "KCDE 400 pairs, linear trend, 4,300 queries");
}

TEST(KcdeQueriesRanks, DiscreteColumns) {
  // A categorical input and an ordered output of integer levels: exact sums over the gate.
  test::PairSample pairs = test::sine_sample(300, 2, 33);
  test::PairSample queries = test::sine_sample(200, 2, 34);
  Rng rng(5);
  for (test::PairSample* sample : {&pairs, &queries}) {
    for (Index i = 0; i < sample->x.cols(); ++i) {
      sample->x(1, i) = std::floor(4.0 * rng.uniform());
      sample->y(0, i) = std::round(3.0 * sample->y(0, i) + sample->x(1, i));
    }
  }
  KcdeOptions options;
  options.bandwidth = {0.5, 0.3, 0.4};
  options.discrete = {1};
  options.ordered = {2};
  // Every query's output among the training levels.
  for (Index i = 0; i < queries.y.cols(); ++i) {
    queries.y(0, i) = std::clamp(queries.y(0, i), pairs.y.minCoeff(), pairs.y.maxCoeff());
  }
  expect_single_process_log_densities(pairs, queries, options,
                                      "KCDE 300 pairs, a categorical input, an ordered output");
}

TEST(KcdeQueriesRanks, TheBroadComponentAndAnOutputTransformOfRowsSplitByHand) {
  // Around the Gaussian-process trend the fit keeps every pair on every rank (the process's broad
  // component), so a model of a Yeo–Johnson y around the trend is split over the ranks here, each
  // rank keeping its stretch of the kernels and the broad component. The weights are set (ε = 0.2,
  // δ = 0.3) rather than fitted: on these Gaussian residuals the fit gives the process all of the
  // weight, and the kernels would not count.
  test::PairSample pairs = test::sine_sample(150, 2, 35);
  pairs.y = pairs.y.array().exp().matrix();
  const ConditionalMixture fitted = gaussian_process_yeo_johnson_kcde(pairs);
  const Index n = pairs.x.cols();
  const auto stretch = [&](Index first, Index count) {
    return kernel_stretch(fitted, first, count, 0.2, 0.3);
  };
  const int size = world().size();
  const int rank = world().rank();
  const Index first = n * rank / size;
  const ConditionalMixture own = stretch(first, n * (rank + 1) / size - first);
  test::PairSample queries = test::sine_sample(40 * size, 2, 36);
  queries.y = queries.y.array().exp().matrix();
  const Index query_first = 40 * rank;
  const Vector log_pdf = log_pdf_of_ranks(own, queries.x.middleCols(query_first, 40),
                                          queries.y.middleCols(query_first, 40), world());
  const Vector expected = stretch(0, n).log_pdf(queries.x, queries.y).segment(query_first, 40);
  const double largest = (log_pdf - expected).cwiseAbs().maxCoeff();
  if (size == 1) {
    EXPECT_EQ(largest, 0.0);
  }
  EXPECT_LE(largest, kQueryTolerance);
  double every = largest;
  world().allreduce_max(&every, 1);
  if (rank == 0) {
    std::cout << "[ ranks " << size << " ] KCDE 150 pairs around the Gaussian-process trend, "
              << "Yeo-Johnson y, split by hand: largest difference of the log-densities from one "
              << "process " << every << std::endl;
  }
}

}  // namespace
}  // namespace cdens

// LSCDE on K ranks, each holding a shard of the rows, against the single-process fit of all the
// rows with the same seed: the same centres, folds and (σ, λ), and the same model up to the
// order of summation. On one rank the fit is the single-process fit to the bit.

#include <gtest/gtest.h>

#include "cdens/conditional/lscde.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::expect_rank_count_does_not_matter;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

/// fit_lscde with `options`, as expect_rank_count_does_not_matter takes it.
testing_mpi::ShardFit lscde_with(const LscdeOptions& options) {
  return
      [options](const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled,
                const FitContext& context) { return fit_lscde(x, y, unlabeled, options, context); };
}

TEST(LscdeRanks, TheSameSeedFitsTheSameModelOnAnyNumberOfRanks) {
  const test::PairSample pairs = test::sine_sample(600, 3, 11);
  LscdeOptions options;
  options.seed = 5;
  expect_rank_count_does_not_matter(pairs, Matrix(3, 0), lscde_with(options),
                                    "LSCDE cross-validated, 600 pairs");
}

TEST(LscdeRanks, FewerPairsThanCentresAndTheSquaredLoss) {
  // n < n_centers: every pair is a centre, and the fold models' centres differ.
  const test::PairSample pairs = test::sine_sample(70, 2, 3);
  LscdeOptions options;
  options.seed = 2;
  options.folds = 4;
  options.cv_loss = CvLoss::sq;
  expect_rank_count_does_not_matter(pairs, Matrix(2, 0), lscde_with(options),
                                    "LSCDE 70 pairs, sq loss");
}

TEST(LscdeRanks, SemiSupervisedWithoutCrossValidation) {
  const test::PairSample pairs = test::sine_sample(300, 2, 4);
  Rng rng(9);
  const Matrix unlabeled = test::normal_matrix(2, 500, rng) * 3.0;
  LscdeOptions options;
  options.sigma = {0.4};
  options.regularization = {0.1};
  options.n_centers = 50;
  expect_rank_count_does_not_matter(pairs, unlabeled, lscde_with(options),
                                    "LSCDE semi-supervised, fixed sigma");
}

TEST(LscdeRanks, TooFewRowsForTheFoldsFailOnEveryRank) {
  const test::PairSample pairs = test::sine_sample(4, 1, 1);
  const std::vector<Index> rows = rows_of_rank(shardings(4).front());
  EXPECT_EQ(test::message_of<InvalidArgument>([&] {
              fit_lscde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), {},
                        FitContext{world()});
            }),
            "cannot split the 4 samples of x into 5 cross-validation folds: give more samples or "
            "fewer folds");
}

}  // namespace
}  // namespace cdens

// LSCDE on K ranks, each holding a shard of the rows, against the single-process fit of all the
// rows with the same seed: the same centres, folds and (σ, λ), and the same model up to the
// order of summation. On one rank the fit is the single-process fit to the bit.

#include <gtest/gtest.h>

#include <functional>
#include <iostream>

#include "cdens/conditional/lscde.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/model_file.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::model_difference;
using testing_mpi::world;

/// Relative difference allowed between the K-rank and the single-process model (every number
/// of the model file: standardisation, centres, coefficients, the CV table). The sums over
/// ranks add the same terms in another order, which moves a sum by a few units in its last
/// place (~1e-16 relative); the λ-path solve (Ĥ + λI)⁻¹ĥ amplifies that by at most the
/// condition number of Ĥ + λI, about 1/λ ≤ 100 for the grid's smallest λ, times the growth
/// through the CV losses. 1e-9 leaves room for that and still fails on any real difference
/// (a different centre or fold moves the numbers by far more than 1e-6).
constexpr double kRankTolerance = 1e-9;

/// This rank's rows when rank r holds the rows from cut(r) to cut(r + 1).
std::vector<Index> rows_of_rank(const std::function<Index(int)>& cut) {
  std::vector<Index> rows;
  for (Index i = cut(world().rank()); i < cut(world().rank() + 1); ++i) rows.push_back(i);
  return rows;
}

/// Equal shards; and shards of growing size where rank 0 holds none when there are others.
std::vector<std::function<Index(int)>> shardings(Index n) {
  const Index size = world().size();
  return {[n, size](int r) { return n * r / size; },
          [n, size](int r) -> Index {
            if (size == 1 || r == 0) return r == 0 ? 0 : n;
            return n * (r - 1) * (r - 1) / ((size - 1) * (size - 1));
          }};
}

/// Fits LSCDE on every sharding of `pairs` and compares each with the single-process model.
void expect_rank_count_does_not_matter(const test::PairSample& pairs, const Matrix& unlabeled,
                                       const LscdeOptions& options, const std::string& name) {
  const nlohmann::json single =
      conditional_model_to_json(unnamed_model(fit_lscde(pairs.x, pairs.y, unlabeled, options)));
  for (const auto& cut : shardings(pairs.x.cols())) {
    const std::vector<Index> rows = rows_of_rank(cut);
    // The unlabelled inputs are split evenly.
    std::vector<Index> unlabeled_rows;
    for (Index i = unlabeled.cols() * world().rank() / world().size();
         i < unlabeled.cols() * (world().rank() + 1) / world().size(); ++i) {
      unlabeled_rows.push_back(i);
    }
    const nlohmann::json sharded = conditional_model_to_json(unnamed_model(
        fit_lscde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows),
                  gather_samples(unlabeled, unlabeled_rows), options, FitContext{world()})));
    const double difference = model_difference(sharded, single);
    if (world().size() == 1) {
      EXPECT_EQ(difference, 0.0) << name << ": one rank must fit the single-process model";
    }
    EXPECT_LE(difference, kRankTolerance) << name;
    if (world().rank() == 0) {
      std::cout << "[ ranks " << world().size() << " ] " << name
                << ": largest relative difference from the single-process model " << difference
                << std::endl;
    }
  }
}

TEST(LscdeRanks, TheSameSeedFitsTheSameModelOnAnyNumberOfRanks) {
  const test::PairSample pairs = test::sine_sample(600, 3, 11);
  LscdeOptions options;
  options.seed = 5;
  expect_rank_count_does_not_matter(pairs, Matrix(3, 0), options, "cross-validated, 600 pairs");
}

TEST(LscdeRanks, FewerPairsThanCentresAndTheSquaredLoss) {
  // n < n_centers: every pair is a centre, and the fold models' centres differ.
  const test::PairSample pairs = test::sine_sample(70, 2, 3);
  LscdeOptions options;
  options.seed = 2;
  options.folds = 4;
  options.cv_loss = CvLoss::sq;
  expect_rank_count_does_not_matter(pairs, Matrix(2, 0), options, "70 pairs, sq loss");
}

TEST(LscdeRanks, SemiSupervisedWithoutCrossValidation) {
  const test::PairSample pairs = test::sine_sample(300, 2, 4);
  Rng rng(9);
  const Matrix unlabeled = test::normal_matrix(2, 500, rng) * 3.0;
  LscdeOptions options;
  options.sigmas = {0.4};
  options.lambdas = {0.1};
  options.n_centers = 50;
  expect_rank_count_does_not_matter(pairs, unlabeled, options, "semi-supervised, fixed sigma");
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

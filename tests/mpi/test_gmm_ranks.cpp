// GMM on K ranks, each holding a shard of the samples, against the single-process fit of all the
// samples with the same seed: the same standardisation, the same k-means++ draws (global sample
// indices) or box starts, EM whose sums (eqs. 5–8) are added over the ranks, and the same choice
// among the restarts — so the same model up to the order of summation, and to the bit on one
// rank.
//
// The tolerance is kRankTolerance (mpi_support.hpp), 1e-9 relative. The sums over ranks move each
// EM step by a few units in the last place (~1e-16 relative); EM is a contraction near the
// maximum it converges to, so those perturbations do not grow from step to step beyond about
// 1/(1 − ρ) for its rate of convergence ρ (ρ = 0.99 gives 1e-14). What would break it — a
// different k-means++ draw, a different iteration count or restart chosen — moves the model by
// far more than 1e-6.

#include <gtest/gtest.h>

#include "cdens/density/gmm.hpp"
#include "cdens/model_file.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::expect_same_model_on_every_sharding;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

/// n draws in d dimensions from three overlapping unit-variance clusters centred at 0, 1.5 and 3
/// in every dimension (with weights 0.5, 0.3, 0.2), shifted and scaled far from standard units:
/// EM needs tens of iterations to converge on them.
Matrix overlapping_clusters(Index d, Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix x(d, n);
  for (Index j = 0; j < n; ++j) {
    const double u = rng.uniform();
    const double center = u < 0.5 ? 0.0 : (u < 0.8 ? 1.5 : 3.0);
    for (Index i = 0; i < d; ++i)
      x(i, j) = 100.0 * static_cast<double>(i) + 7.0 * (center + rng.normal());
  }
  return x;
}

/// Options of N_K components and n_init restarts from `seed`.
GmmOptions restarts(Index components, int n_init, std::uint64_t seed) {
  GmmOptions options;
  options.n_components = components;
  options.n_init = n_init;
  options.seed = seed;
  return options;
}

/// Compares fit_gmm with `options` on every sharding of x with the single-process fit.
void expect_gmm_rank_count_does_not_matter(const Matrix& x, const GmmOptions& options,
                                           const std::string& name) {
  expect_same_model_on_every_sharding(
      x.cols(),
      [&](const std::vector<Index>& rows, const FitContext& context) {
        return density_model_to_json(
            unnamed_density_model(fit_gmm(gather_samples(x, rows), options, context)));
      },
      name);
}

TEST(GmmRanks, KmeansPlusPlusDrawsTheSameSamplesOnAnyNumberOfRanks) {
  // No EM iteration: the model is the start itself (the drawn centres after one hard M-step),
  // which EM could otherwise hide by converging to the same maximum from different starts.
  GmmOptions options = restarts(8, 3, 3);
  options.max_iter = 0;
  expect_gmm_rank_count_does_not_matter(overlapping_clusters(3, 500, 1), options,
                                        "GMM k-means++ starts, 500 samples");
}

TEST(GmmRanks, KmeansPlusPlusFallsBackToUniformWhenEverySampleIsACentre) {
  // Two distinct samples, five components: after two draws every squared distance is zero and
  // the remaining centres are drawn uniformly by global index.
  Matrix x(2, 60);
  for (Index j = 0; j < x.cols(); ++j) x.col(j) = Vector::Constant(2, static_cast<double>(j % 2));
  GmmOptions options = restarts(5, 2, 6);
  options.max_iter = 0;
  expect_gmm_rank_count_does_not_matter(x, options, "GMM k-means++ on two distinct samples");
}

TEST(GmmRanks, TheSameSeedFitsTheSameModelOnAnyNumberOfRanks) {
  expect_gmm_rank_count_does_not_matter(overlapping_clusters(5, 800, 2), restarts(3, 4, 5),
                                        "GMM k-means++, n_init 4, d = 5, 800 samples");
}

TEST(GmmRanks, TheBoxStartInTheDataUnits) {
  // The paper's start and units (standardize off): the box and the variances in the data's units.
  const Matrix x = overlapping_clusters(2, 600, 3) / 7.0;
  GmmOptions options = restarts(4, 3, 9);
  options.init = GmmInitialization::box;
  options.standardize = false;
  options.box_lower = -3.0;
  options.box_upper = 18.0;
  options.initial_variance = 1.0;
  options.variance_floor = 0.01;
  expect_gmm_rank_count_does_not_matter(x, options, "GMM box start, data units");
}

TEST(GmmRanks, MoreComponentsThanSamplesOfEveryRankIsRefusedOnEveryRank) {
  const Matrix x = overlapping_clusters(2, 12, 4);
  GmmOptions options;
  options.n_components = 13;
  const std::vector<Index> rows = rows_of_rank(shardings(x.cols()).back());
  EXPECT_EQ(test::message_of<InvalidArgument>(
                [&] { fit_gmm(gather_samples(x, rows), options, FitContext{world()}); }),
            "GMM n_components (13) exceeds the number of samples (12)");
  // Twelve components are as many as the samples of every rank, however few one rank holds.
  options.n_components = 12;
  options.max_iter = 0;
  EXPECT_EQ(fit_gmm(gather_samples(x, rows), options, FitContext{world()}).model.n_components(),
            12);
}

}  // namespace
}  // namespace cdens

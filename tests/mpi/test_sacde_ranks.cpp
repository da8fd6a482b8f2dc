// SA-CDE and SA-LSCDE on K ranks against the single-process fit with the same seed: each rank
// holds a shard of the pairs, and Ĥ's blocks, ĥ and the held-out losses are summed over the
// ranks, so the same features, (σ, λ) and coefficients come out (to the bit on one rank).

#include <gtest/gtest.h>

#include "cdens/conditional/sacde.hpp"
#include "cdens/conditional/salscde.hpp"
#include "mpi_support.hpp"

namespace cdens {
namespace {

using testing_mpi::expect_rank_count_does_not_matter;

/// A small grid, so that four ranks on two cores stay quick; three inputs, of which the sine
/// sample's output depends on the first only.
SacdeOptions small_grid() {
  SacdeOptions options;
  options.sigma = {0.1, 0.3, 1.0};
  options.regularization = {0.001, 0.01, 0.03, 0.1};
  options.n_centers = 40;
  options.folds = 3;
  options.seed = 8;
  return options;
}

TEST(SaCdeRanks, TheSameSeedSelectsTheSameFeaturesAndModelOnAnyNumberOfRanks) {
  const test::PairSample pairs = test::sine_sample(240, 3, 21);
  const SacdeOptions options = small_grid();
  expect_rank_count_does_not_matter(
      pairs, Matrix(3, 0),
      [&](const MatrixView& x, const MatrixView& y, const MatrixView&, const FitContext& context) {
        return fit_sacde(x, y, options, context);
      },
      "SA-CDE, 240 pairs");
}

TEST(SaCdeRanks, SaLscdeSelectsWithSaCdeAndFitsLscdeOnTheSameRanks) {
  const test::PairSample pairs = test::sine_sample(150, 2, 5);
  SalscdeOptions options;
  options.selection = small_grid();
  options.estimation.sigma = {0.2, 0.5};
  options.estimation.regularization = {0.01, 0.1};
  options.estimation.folds = 3;
  expect_rank_count_does_not_matter(
      pairs, Matrix(2, 0),
      [&](const MatrixView& x, const MatrixView& y, const MatrixView&, const FitContext& context) {
        return fit_salscde(x, y, options, context);
      },
      "SA-LSCDE, 150 pairs");
}

}  // namespace
}  // namespace cdens

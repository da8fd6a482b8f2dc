// FW-LSCDE on K ranks against the single-process fit with the same seed: every candidate
// feature set's LSCDE fit sums over the ranks, so each step adds the same feature and the final
// model is the same (to the bit on one rank).

#include <gtest/gtest.h>

#include "cdens/conditional/forward_selection.hpp"
#include "mpi_support.hpp"

namespace cdens {
namespace {

TEST(ForwardSelectionRanks, FwLscdeAddsTheSameFeaturesOnAnyNumberOfRanks) {
  // Three inputs, of which the output depends on the first only: the selection stops after one
  // or two steps, each trying the remaining features.
  const test::PairSample pairs = test::sine_sample(180, 3, 13);
  ForwardSelectionLscdeOptions options;
  options.estimator.sigma = {0.3, 1.0};
  options.estimator.regularization = {0.01, 0.1};
  options.estimator.n_centers = 40;
  options.estimator.folds = 3;
  options.estimator.seed = 6;
  testing_mpi::expect_rank_count_does_not_matter(
      pairs, Matrix(3, 0),
      [&](const MatrixView& x, const MatrixView& y, const MatrixView&, const FitContext& context) {
        return fit_forward_selection_lscde(x, y, options, context);
      },
      "FW-LSCDE, 180 pairs");
}

}  // namespace
}  // namespace cdens

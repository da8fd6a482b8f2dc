// PRESS on K ranks, each holding a shard of the rows, against the single-process fit of all the
// rows with the same seed: the criterion and its gradient are sums over the rows (the state sums
// σ_j and Σ_i W_ji y_i first, then what the state means give), the standardisation and the
// hold-out split are those of every rank's rows, and the starts come from the seed. On one rank
// the fit is the single-process fit to the bit.

#include <gtest/gtest.h>

#include "cdens/core/rng.hpp"
#include "cdens/model_file.hpp"
#include "cdens/regression/press.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "regression/press_smoother.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

/// The largest difference, relative to max(1, |a|), between two numbers of an evaluation.
double relative_gap(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(a)); }

/// The criterion, its parts and its gradient on every sharding of the rows against one process,
/// at random coefficients. The sums over ranks add the same terms in another order: a few units
/// in the last place of each sum, ~1e-16 relative, and the criteria divide and square them, so
/// 1e-13 is ample and still fails on any term counted twice or missed.
void expect_same_objective(PressCriterion criterion, PressSmoothnessPenalty penalty) {
  Rng rng(4);
  const Index n = 240;
  const Matrix x = test::normal_matrix(3, n, rng);
  Vector y(n);
  for (Index i = 0; i < n; ++i) y(i) = std::sin(2.0 * x(0, i)) + 0.3 * rng.normal();
  Matrix coefficients = test::normal_matrix(4, 4, rng);
  coefficients.colwise() -= coefficients.rowwise().mean();
  const PressObjective alone(press_design(x), y, criterion, penalty);
  Matrix gradient_alone;
  const PressEvaluation single = alone.evaluate(coefficients, &gradient_alone);
  ASSERT_TRUE(std::isfinite(single.value));
  double largest = 0.0;
  for (const auto& cut : shardings(n)) {
    const std::vector<Index> rows = rows_of_rank(cut);
    Vector y_rows(static_cast<Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) y_rows(static_cast<Index>(i)) = y(rows[i]);
    const PressObjective sharded(press_design(gather_samples(x, rows)), y_rows, criterion, penalty,
                                 0, false, world());
    EXPECT_EQ(sharded.n_samples(), n);
    Matrix gradient;
    const PressEvaluation evaluation = sharded.evaluate(coefficients, &gradient);
    for (const auto& [a, b] : {std::pair{evaluation.value, single.value},
                               {evaluation.criterion, single.criterion},
                               {evaluation.mse, single.mse},
                               {evaluation.degrees_of_freedom, single.degrees_of_freedom}}) {
      largest = std::max(largest, relative_gap(a, b));
    }
    for (Index j = 0; j < single.state_means.size(); ++j) {
      largest = std::max(largest, relative_gap(evaluation.state_means(j), single.state_means(j)));
    }
    largest = std::max(largest, (gradient - gradient_alone).cwiseAbs().maxCoeff() /
                                    std::max(1.0, gradient_alone.cwiseAbs().maxCoeff()));
  }
  testing_mpi::expect_difference_within(
      largest, 1e-13, "PRESS " + to_string(criterion) + " criterion and gradient");
}

TEST(PressRanks, TheCriteriaAndTheirGradientsAreSumsOverEveryRanksRows) {
  expect_same_objective(PressCriterion::mse, {});
  expect_same_objective(PressCriterion::loocv, {});
  expect_same_objective(PressCriterion::gcv, {0.3, 2.0});
}

TEST(PressRanks, ALoocvWithAStateOfOneRowIsInfiniteOnEveryRank) {
  // Coefficients that put all the weight of state 1 on the row with the largest x: its s_ii is
  // 1, on whichever rank holds it.
  const Index n = 40;
  Matrix x(1, n);
  for (Index i = 0; i < n; ++i) x(0, i) = static_cast<double>(i) / n;
  const Vector y = x.row(0).transpose();
  Matrix coefficients(2, 2);
  coefficients << 3e4, -3e4, -3.1e4, 3.1e4;  // state 1 only where 62000 x > 60000, exactly
  for (const auto& cut : shardings(n)) {
    const std::vector<Index> rows = rows_of_rank(cut);
    Vector y_rows(static_cast<Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) y_rows(static_cast<Index>(i)) = y(rows[i]);
    const PressObjective objective(press_design(gather_samples(x, rows)), y_rows,
                                   PressCriterion::loocv, {}, 0, false, world());
    Matrix gradient;
    EXPECT_TRUE(std::isinf(objective.evaluate(coefficients, &gradient).value));
    EXPECT_TRUE(gradient.isZero(0.0));
  }
}

/// What the K-rank PRESS model may differ by from the single process's, relative. Each evaluation
/// agrees to ~1e-16 (the test above); the optimiser then carries that rounding through a few
/// hundred steps — L-BFGS's curvature pairs, Adam's moments — which amplify it without any of its
/// decisions changing (measured at most 2.3e-9 on 2, 3 and 4 ranks, L-BFGS; 2.4e-12 Adam). A
/// different path — another evaluation kept by early stopping, another start, a LASSO
/// coefficient clamped at its bound on one side — moves the coefficients by a step of the
/// optimiser, far more than 1e-6.
constexpr double kPressTolerance = 1e-6;

/// Compares fit_press with `options` on every sharding of the pairs with the single-process fit.
void expect_press_rank_count_does_not_matter(const test::PairSample& pairs,
                                             const PressOptions& options, const std::string& name) {
  testing_mpi::expect_same_pair_model(
      pairs,
      [&](const MatrixView& x, const MatrixView& y, const FitContext& context) {
        return fit_press(x, y, options, context);
      },
      name, kPressTolerance);
}

TEST(PressRanks, TheSameSeedFitsTheSameModelWithAdamAndAHoldOut) {
  PressOptions options;
  options.n_states = 3;
  options.n_restarts = 2;
  options.max_iter = 300;
  options.patience = 100;
  options.learning_rate = 0.02;
  options.seed = 7;
  expect_press_rank_count_does_not_matter(test::sine_sample(300, 2, 5), options,
                                          "PRESS Adam, GCV, hold-out, 300 pairs");
}

TEST(PressRanks, TheSameSeedFitsTheSameModelWithLbfgsAndLoocv) {
  PressOptions options;
  options.n_states = 4;
  options.n_restarts = 2;
  options.optimizer = PressOptimizer::lbfgs;
  options.criterion = PressCriterion::loocv;
  options.holdout_fraction = 0.0;
  options.max_iter = 150;
  options.lasso_weight = 0.01;
  options.seed = 3;
  expect_press_rank_count_does_not_matter(test::sine_sample(250, 3, 8), options,
                                          "PRESS L-BFGS, LOOCV, LASSO, 250 pairs");
}

TEST(PressRanks, ARankWithoutRowsAndTooFewRowsOnEveryRank) {
  const test::PairSample pairs = test::sine_sample(6, 1, 2);
  PressOptions options;
  options.n_states = 5;
  const std::vector<Index> rows = rows_of_rank(shardings(6).back());
  EXPECT_EQ(test::message_of<InvalidArgument>([&] {
              fit_press(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options,
                        FitContext{world()});
            }),
            "PRESS with J = 5 states needs more than 5 fitting samples of x; there are 5");
}

}  // namespace
}  // namespace cdens

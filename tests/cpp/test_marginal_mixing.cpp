// KCDE's marginal mixing (marginal_mixing.hpp, docs/methods/kcde.md): the weight against a
// brute-force grid, the mixed gate against its formula, the fitted model's density and reported
// leave-one-out NLL against explicit leave-one-out sums, and a y-outlier whose log density the
// mixing bounds.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/marginal_mixing.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

TEST(MarginalMixingTest, WeightMaximisesTheMeanAgainstAGrid) {
  Rng rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    const Index n = 5 + 10 * trial;
    Vector a = test::normal_matrix(1, n, rng).row(0).transpose();
    // Marginal log densities mostly below the conditional ones, a few far above: an interior
    // optimum in most trials.
    Vector b = a.array() - 2.0 + test::normal_matrix(1, n, rng).row(0).transpose().array() * 3.0;
    const double minimum = trial % 2 == 0 ? 0.0 : 0.05;
    const double weight = best_mixing_weight(a, b, minimum);
    EXPECT_GE(weight, minimum);
    const double best = mixed_negative_log_likelihood(a, b, weight);
    for (int g = 0; g <= 10000; ++g) {
      const double candidate = minimum + (1.0 - minimum) * g / 10000.0;
      EXPECT_LE(best, mixed_negative_log_likelihood(a, b, candidate) + 1e-12)
          << "trial " << trial << ", ε = " << candidate;
    }
  }
}

TEST(MarginalMixingTest, WeightSitsAtAnEndWhereOneSideDominates) {
  const Vector a = (Vector(3) << -1.0, -2.0, 0.5).finished();
  EXPECT_EQ(best_mixing_weight(a, a.array() - 1.0, 0.0), 0.0);
  EXPECT_EQ(best_mixing_weight(a, a.array() - 1.0, 0.1), 0.1);
  EXPECT_EQ(best_mixing_weight(a, a.array() + 1.0, 0.1), 1.0);
  // Equal densities: every ε gives the same mean; the slope is 0, so the smallest weight.
  EXPECT_EQ(best_mixing_weight(a, a, 0.0), 0.0);
  // Gaps of ±800 nats overflow neither exp(b − a) nor its inverse.
  const Vector far = (Vector(2) << -800.0, 0.0).finished();
  const Vector near = (Vector(2) << 0.0, -800.0).finished();
  EXPECT_NEAR(best_mixing_weight(far, near, 0.0), 0.5, 1e-12);
  EXPECT_THROW(best_mixing_weight(a, Vector::Zero(2), 0.0), InvalidArgument);
  EXPECT_THROW(best_mixing_weight(a, Vector::Constant(3, INFINITY), 0.0), InvalidArgument);
  EXPECT_THROW(best_mixing_weight(a, a, 1.5), InvalidArgument);
}

TEST(MarginalMixingTest, GateMixesTheNormalisedWeightsWithEqualOnes) {
  Rng rng(5);
  const Matrix centers = test::normal_matrix(2, 12, rng);
  const Vector h = (Vector(2) << 0.4, 0.9).finished();
  const ProductKernelGate plain(centers, h);
  const ProductKernelGate mixed(centers, h, {}, 0.3);
  Matrix queries = test::normal_matrix(2, 6, rng);
  // Every kernel weight underflows as a number, not in log space: the nearest centre takes the
  // normalised weight.
  queries(0, 5) = 1e6;
  Matrix plain_log(12, 6);
  Matrix mixed_log(12, 6);
  plain.log_weights(queries, plain_log);
  mixed.log_weights(queries, mixed_log);
  for (Index j = 0; j < 6; ++j) {
    const Vector w = (plain_log.col(j).array() - plain_log.col(j).maxCoeff()).exp();
    const Vector expected = 0.7 * w / w.sum() + Vector::Constant(12, 0.3 / 12);
    for (Index k = 0; k < 12; ++k) EXPECT_NEAR(std::exp(mixed_log(k, j)), expected(k), 1e-14);
  }
  EXPECT_THROW(ProductKernelGate(centers, h, {}, 1.5), InvalidArgument);
  EXPECT_THROW(ProductKernelGate(centers, h, {}, -0.1), InvalidArgument);
}

/// (x, y) pairs of y = x + 0.1 noise with one y outlier (y = 3 at x = 0): its neighbours in x
/// all have outputs near 0.
test::PairSample sample_with_outlier(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample data;
  data.x = test::normal_matrix(1, n, rng);
  data.y = data.x + 0.1 * test::normal_matrix(1, n, rng);
  data.x(0, 0) = 0.0;
  data.y(0, 0) = 3.0;
  return data;
}

TEST(MarginalMixingTest, FittedModelIsTheMixtureAndReportsItsLeaveOneOutLikelihood) {
  const test::PairSample train = sample_with_outlier(80, 6);
  const ConditionalFit fit = fit_kcde(train.x, train.y);
  const double weight = fit.report.hyperparameters.at("marginal_weight");
  // The outlier's leave-one-out density is far better under the marginal: ε above its floor 1/n.
  EXPECT_GT(weight, 1.0 / 80);
  EXPECT_LT(weight, 0.2);
  const double hx = fit.report.hyperparameters.at("bandwidth_x0");
  const double hy = fit.report.hyperparameters.at("bandwidth_y0");
  Matrix z(2, 80);
  z << Standardizer::fit(train.x, "x").transform(train.x),
      Standardizer::fit(train.y, "y").transform(train.y);
  const Vector h = (Vector(2) << hx, hy).finished();
  const Vector log_conditional = -test::explicit_leave_one_out(z, 1, ColumnKernels(2), h);
  const Vector log_marginal =
      -test::explicit_leave_one_out(z.bottomRows(1), 0, ColumnKernels(1), h.tail(1));
  // The weight is the best for these explicit leave-one-out densities, and the reported NLLs
  // are theirs in the user's units.
  const double sy = test::sample_scale(train.y)(0);
  EXPECT_NEAR(weight, best_mixing_weight(log_conditional, log_marginal, 1.0 / 80), 1e-12);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"),
              mixed_negative_log_likelihood(log_conditional, log_marginal, weight) + std::log(sy),
              1e-9);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll_unmixed"), -log_conditional.mean() + std::log(sy),
              1e-9);
  // The fit's held-out log-densities (auto stacks on them): the mixture's leave-one-out ones in
  // the user's units, pair by pair.
  ASSERT_TRUE(fit.report.held_out);
  EXPECT_TRUE(fit.report.held_out->pairs.empty());
  EXPECT_TRUE(fit.report.held_out->log_densities.isApprox(
      (mixed_log_densities(log_conditional, log_marginal, weight).array() - std::log(sy)).matrix(),
      1e-12));
  // The density at new pairs: (1 − ε) · the kernel ratio + ε · the kernel density of y.
  const double sx = test::sample_scale(train.x)(0);
  const test::PairSample queries = sample_with_outlier(10, 7);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < 10; ++j) {
    double numerator = 0.0, denominator = 0.0, marginal = 0.0;
    for (Index i = 0; i < 80; ++i) {
      const double u = (queries.x(0, j) - train.x(0, i)) / (sx * hx);
      const double weight_i = std::exp(-0.5 * u * u);
      const double kernel_y = test::gaussian_density(queries.y.col(j), train.y.col(i), hy * sy);
      numerator += weight_i * kernel_y;
      denominator += weight_i;
      marginal += kernel_y / 80.0;
    }
    EXPECT_NEAR(log_density(j),
                std::log((1 - weight) * numerator / denominator + weight * marginal), 1e-9)
        << "query " << j;
  }
  test::expect_integrates_to_one(fit.model, train.y, {-0.5, 0.0, 1.0});
  // Without mixing, the same bandwidths and the plain estimate.
  KcdeOptions plain;
  plain.marginal_mixing = MarginalMixing::none;
  const ConditionalFit unmixed = fit_kcde(train.x, train.y, plain);
  EXPECT_EQ(unmixed.report.hyperparameters.count("marginal_weight"), 0u);
  EXPECT_NEAR(unmixed.report.statistics.at("loo_nll"), fit.report.statistics.at("loo_nll_unmixed"),
              1e-12);
}

TEST(MarginalMixingTest, BoundsTheLogDensityOfAnOutlierAndSurvivesAModelFile) {
  // A new outlier, at x = 1 where the outputs are near 1, with the output of the training
  // outlier: the plain estimate puts it many bandwidths into the Gaussian tail of its
  // neighbours; the mixture gives it ε times the density of y there, which the training outlier
  // makes appreciable.
  const test::PairSample train = sample_with_outlier(80, 8);
  KcdeOptions plain;
  plain.marginal_mixing = MarginalMixing::none;
  const ConditionalFit unmixed = fit_kcde(train.x, train.y, plain);
  const ConditionalFit mixed = fit_kcde(train.x, train.y);
  const Matrix x = Matrix::Constant(1, 1, 1.0);
  const Matrix y = Matrix::Constant(1, 1, 2.95);
  // Plain: −14.6 here, at the neighbours' Gaussian tail. Mixed: at least ε times the training
  // outlier's own kernel over n (−8.2 here).
  EXPECT_LT(unmixed.model.log_pdf(x, y)(0), -12.0);
  const double weight = mixed.report.hyperparameters.at("marginal_weight");
  const double hy = mixed.report.hyperparameters.at("bandwidth_y0");
  const double outlier_kernel =
      test::gaussian_density(y.col(0), train.y.col(0), hy * test::sample_scale(train.y)(0));
  EXPECT_GE(mixed.model.log_pdf(x, y)(0), std::log(weight * outlier_kernel / 80.0));
  EXPECT_GT(mixed.model.log_pdf(x, y)(0), -9.0);
  const test::PairSample queries = sample_with_outlier(10, 9);
  test::expect_model_file_round_trip(mixed.model, mixed.report, queries.x, queries.y);
}

}  // namespace
}  // namespace cdens

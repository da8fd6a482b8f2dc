// Stacking (methods/stacking_weights.hpp) and the linear pool of fitted conditional mixtures
// (conditional/pooled_gate.hpp): the weights against a brute-force grid of the simplex, and every
// query of a pool of KCDE around a Gaussian-process trend, KCDE on a line, plain KCDE and the
// linear-Gaussian model against the weighted sum of the members' own answers, integrals by
// quadrature and the model file.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/pooled_gate.hpp"
#include "methods/stacking_weights.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// The mean log score of the pool with weights a of the columns' densities.
double mean_log_score(const Matrix& log_densities, const Vector& weights) {
  double total = 0.0;
  for (Index i = 0; i < log_densities.rows(); ++i) {
    double pooled = 0.0;
    for (Index c = 0; c < log_densities.cols(); ++c) {
      pooled += weights(c) * std::exp(log_densities(i, c));
    }
    total += std::log(pooled);
  }
  return total / static_cast<double>(log_densities.rows());
}

/// Held-out log-densities of three candidates on 400 pairs: each is the better one on a part of
/// the pairs, so that the best pool mixes them.
Matrix complementary_scores() {
  Rng rng(5);
  Matrix scores(400, 3);
  for (Index i = 0; i < scores.rows(); ++i) {
    for (Index c = 0; c < 3; ++c) scores(i, c) = -1.5 + 0.5 * rng.normal();
    scores(i, i % 3) += 1.0 + 0.2 * static_cast<double>(i % 3);
  }
  return scores;
}

TEST(StackingWeightsTest, MaximiseTheMeanLogScoreOverTheSimplexAsABruteForceGridDoes) {
  const Matrix scores = complementary_scores();
  const StackingWeights stacked = stacking_weights(scores);
  EXPECT_NEAR(stacked.weights.sum(), 1.0, 1e-12);
  EXPECT_NEAR(stacked.mean_log_score, mean_log_score(scores, stacked.weights), 1e-12);
  // Every point of the simplex on a grid of step 0.005.
  double best = -INFINITY;
  Vector best_weights(3);
  for (int a = 0; a <= 200; ++a) {
    for (int b = 0; a + b <= 200; ++b) {
      const Vector weights = (Vector(3) << a, b, 200 - a - b).finished() / 200.0;
      const double score = mean_log_score(scores, weights);
      if (score > best) {
        best = score;
        best_weights = weights;
      }
    }
  }
  EXPECT_GE(stacked.mean_log_score, best - 1e-9);
  // The objective is flat to second order at the optimum: the grid's best lies within a step or
  // two of it.
  EXPECT_LT((stacked.weights - best_weights).cwiseAbs().maxCoeff(), 0.011);
  EXPECT_GT(stacked.weights.minCoeff(), 0.1);
}

TEST(StackingWeightsTest, PairWeightsCountAsRepeatedPairs) {
  const Matrix scores = complementary_scores();
  const Vector weights = test::integer_weights(scores.rows());
  const StackingWeights weighted = stacking_weights(scores, weights);
  const Matrix repeated = test::repeated_columns(scores.transpose(), weights).transpose();
  const StackingWeights expected = stacking_weights(repeated);
  EXPECT_LT((weighted.weights - expected.weights).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_NEAR(weighted.mean_log_score, expected.mean_log_score, 1e-12);
  EXPECT_NEAR(weighted.mean_log_score, mean_log_score(repeated, weighted.weights), 1e-12);
  EXPECT_THROW(stacking_weights(scores, Vector::Ones(3)), InvalidArgument);
}

TEST(StackingWeightsTest, ADominantCandidateTakesEveryWeightAndSmallOnesArePruned) {
  Matrix scores = complementary_scores();
  // Candidate 0 better than the others on every pair: the pool is candidate 0 alone.
  Matrix dominated = scores;
  dominated.col(0) = scores.rowwise().maxCoeff().array() + 0.1;
  const StackingWeights alone = stacking_weights(dominated);
  EXPECT_EQ(alone.weights(0), 1.0);
  EXPECT_EQ(alone.weights(1), 0.0);
  EXPECT_EQ(alone.weights(2), 0.0);
  // A candidate that helps on one pair in 400 gets a weight below the pruning bound: dropped,
  // and the others' weights are the optimum without it (the grid over the remaining edge).
  Matrix rare(scores.rows(), 4);
  rare.leftCols(3) = scores;
  rare.col(3).setConstant(-30.0);
  rare(7, 3) = 2.0;
  const StackingWeights pruned = stacking_weights(rare);
  EXPECT_EQ(pruned.weights(3), 0.0);
  const StackingWeights without = stacking_weights(scores);
  EXPECT_NEAR((pruned.weights.head(3) - without.weights).cwiseAbs().maxCoeff(), 0.0, 1e-6);
  EXPECT_THROW(stacking_weights(Matrix(0, 2)), InvalidArgument);
  Matrix infinite = scores;
  infinite(3, 1) = -INFINITY;
  EXPECT_THROW(stacking_weights(infinite), InvalidArgument);
}

/// Four members: KCDE around a Gaussian-process trend, on a line, plain, and the linear-Gaussian
/// model (a trend with a scale), fitted to the same pairs — or, with `own_standardisations`, the
/// linear model fitted to the first 100 of them, so that it standardises x and y otherwise and
/// the pool keeps each member's own (pooled_gate.hpp).
struct Members {
  std::vector<ConditionalFit> fits;
  Vector weights;
};

Members fitted_members(bool own_standardisations = false) {
  const test::PairSample data = test::sine_sample(120, 2, 31);
  Members members;
  KcdeOptions options;
  for (const KernelTrend trend :
       {KernelTrend::gaussian_process, KernelTrend::linear, KernelTrend::none}) {
    options.trend = trend;
    members.fits.push_back(fit_kcde(data.x, data.y, options));
  }
  const Index linear_pairs = own_standardisations ? 100 : 120;
  members.fits.push_back(fit_linear(data.x.leftCols(linear_pairs), data.y.leftCols(linear_pairs)));
  members.weights = (Vector(4) << 0.4, 0.1, 0.3, 0.2).finished();
  return members;
}

ConditionalMixture pool_of(const Members& members) {
  std::vector<const ConditionalMixture*> mixtures;
  for (const ConditionalFit& fit : members.fits) mixtures.push_back(&fit.model);
  return pool_mixtures(mixtures, members.weights);
}

/// Query inputs inside and beyond the training inputs.
Matrix query_inputs() {
  const test::PairSample queries = test::sine_sample(9, 2, 77);
  Matrix x = queries.x;
  x.col(8) *= 6.0;
  return x;
}

/// The pool's density, CDF, mean and variance against the weighted sums of its members'.
void expect_weighted_members(const Members& members) {
  const ConditionalMixture pool = pool_of(members);
  EXPECT_EQ(pool.trend_groups().size(), 4u);
  EXPECT_THROW(pool.trend(), InvalidArgument);
  const Matrix x = query_inputs();
  const test::PairSample targets = test::sine_sample(9, 2, 78);
  const Matrix& y = targets.y;
  Vector density = Vector::Zero(x.cols());
  Vector cdf = Vector::Zero(x.cols());
  Vector mean = Vector::Zero(x.cols());
  Vector second_moment = Vector::Zero(x.cols());
  for (std::size_t m = 0; m < members.fits.size(); ++m) {
    const ConditionalMixture& member = members.fits[m].model;
    const double a = members.weights(static_cast<Index>(m));
    density += a * member.log_pdf(x, y).array().exp().matrix();
    cdf += a * member.cdf(x, y);
    const Vector member_mean = member.mean(x).row(0).transpose();
    mean += a * member_mean;
    second_moment +=
        a *
        (member.covariance(x).row(0).transpose().array() + member_mean.array().square()).matrix();
  }
  const Vector log_pdf = pool.log_pdf(x, y);
  for (Index j = 0; j < x.cols(); ++j) {
    EXPECT_NEAR(log_pdf(j), std::log(density(j)), 1e-10) << j;
    EXPECT_NEAR(pool.pdf_grid(x.col(j), y.col(j))(0, 0), density(j), 1e-10 * density(j)) << j;
  }
  EXPECT_LT((pool.cdf(x, y) - cdf).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((pool.mean(x).row(0).transpose() - mean).cwiseAbs().maxCoeff(), 1e-10);
  const Vector variance = second_moment.array() - mean.array().square();
  EXPECT_LT((pool.covariance(x).row(0).transpose() - variance).cwiseAbs().maxCoeff(),
            1e-10 * variance.maxCoeff());
}

TEST(PooledMixtureTest, DensityCdfAndMomentsAreTheWeightedMembers) {
  for (const bool own_standardisations : {false, true}) {
    SCOPED_TRACE(own_standardisations ? "members of their own standardisations" : "one");
    expect_weighted_members(fitted_members(own_standardisations));
  }
}

TEST(PooledMixtureTest, ATransformedMemberOfItsOwnStandardisationsIsPooledAsItIs) {
  // KCDE on a Yeo–Johnson transform of y (its t = T(y) does not depend on y's standardisation)
  // fitted on 100 of the pairs, pooled with the members fitted on all 120.
  const test::PairSample data = test::sine_sample(120, 2, 31);
  KcdeOptions options;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  Members members = fitted_members();
  members.fits[1] = fit_kcde(data.x.leftCols(100), data.y.leftCols(100), options);
  ASSERT_TRUE(members.fits[1].model.has_output_transform());
  expect_weighted_members(members);
  const ConditionalMixture pool = pool_of(members);
  const Matrix x = query_inputs();
  const Matrix quartiles = pool.quantiles(x, {0.25, 0.75});
  for (Index j = 0; j < x.cols(); ++j) {
    const Vector levels = pool.cdf(x.col(j).replicate(1, 2), quartiles.col(j).transpose());
    EXPECT_NEAR(levels(0), 0.25, 1e-9) << j;
    EXPECT_NEAR(levels(1), 0.75, 1e-9) << j;
  }
}

TEST(PooledMixtureTest, MembersOfTheirOwnStandardisationsKeepThem) {
  const Members members = fitted_members(true);
  const ConditionalMixture pool = pool_of(members);
  // The pool's inputs are the raw x; its outputs the first member's standardisation.
  EXPECT_EQ(pool.x_scaling().mean(), Vector::Zero(2));
  EXPECT_EQ(pool.x_scaling().scale(), Vector::Ones(2));
  EXPECT_EQ(pool.y_scaling().mean(), members.fits[0].model.y_scaling().mean());
  const std::vector<PooledMember> pooled = pool.gate().pooled_members();
  ASSERT_EQ(pooled.size(), 4u);
  for (std::size_t c = 0; c < 4; ++c) {
    ASSERT_TRUE(pooled[c].input_scaling.has_value());
    EXPECT_EQ(pooled[c].input_scaling->mean(), members.fits[c].model.x_scaling().mean());
  }
  EXPECT_NE(pooled[3].input_scaling->mean(), pooled[0].input_scaling->mean());
  // Members of one standardisation are pooled on it, as before.
  const ConditionalMixture shared = pool_of(fitted_members(false));
  EXPECT_EQ(shared.x_scaling().mean(), members.fits[0].model.x_scaling().mean());
  EXPECT_FALSE(shared.gate().pooled_members()[0].input_scaling.has_value());
}

TEST(PooledMixtureTest, IntegralsQuantilesRegionsAndScoresAgreeWithQuadrature) {
  for (const bool own_standardisations : {false, true}) {
    SCOPED_TRACE(own_standardisations ? "members of their own standardisations" : "one");
    const ConditionalMixture pool = pool_of(fitted_members(own_standardisations));
    const Matrix x = query_inputs();
    // y ~ 4 ± 0.3 in the sample's units; the grid reaches far into every member's tails.
    const Index points = 16001;
    const double low = 0.0, high = 8.0, step = (high - low) / (points - 1.0);
    Matrix grid(1, points);
    for (Index g = 0; g < points; ++g) grid(0, g) = low + step * static_cast<double>(g);
    const Matrix densities = pool.pdf_grid(x, grid);
    const Vector norms = pool.squared_norm(x);
    const auto regions = pool.highest_density_regions(x, 0.8);
    const Matrix quartiles = pool.quantiles(x, {0.25, 0.75});
    const Matrix observed = Matrix::Constant(1, x.cols(), 4.1);
    const Vector scores = crps(pool, x, observed);
    for (Index j = 0; j < x.cols(); ++j) {
      const Vector p = densities.col(j);
      const double trapezoid_ends = 0.5 * (p(0) + p(points - 1));
      EXPECT_NEAR(step * (p.sum() - trapezoid_ends), 1.0, 1e-6) << j;
      EXPECT_NEAR(step * (p.squaredNorm() - 0.5 * (p(0) * p(0) + p(points - 1) * p(points - 1))),
                  norms(j), 1e-6 * norms(j))
          << j;
      // The quantiles invert the CDF.
      const Matrix at = x.col(j).replicate(1, 2);
      const Vector levels = pool.cdf(at, quartiles.col(j).transpose());
      EXPECT_NEAR(levels(0), 0.25, 1e-9);
      EXPECT_NEAR(levels(1), 0.75, 1e-9);
      // The region holds 80 % and is where the density is above its threshold.
      double held = 0.0;
      for (const Interval& interval : regions[static_cast<std::size_t>(j)].intervals) {
        const Matrix ends = (Matrix(1, 2) << interval.lower, interval.upper).finished();
        const Vector at_ends = pool.cdf(at, ends);
        held += at_ends(1) - at_ends(0);
      }
      EXPECT_NEAR(held, 0.8, 1e-6) << j;
      // CRPS = ∫ F(t)² dt below 4.1 + ∫ (1 − F(t))² dt above, by Simpson's rule on 1,000
      // intervals on each side of 4.1 over [0, 8.2]; the rule's error, (h⁴/180) ∫ |(F²)⁗|, is
      // below 1e−9 at h = 0.0041 (the score itself agrees to about 1e−7 of its value).
      const Index sides = 1000;
      const Vector ends = Vector::LinSpaced(2 * sides + 1, 0.0, 8.2);
      const Vector distribution = pool.cdf(x.col(j).replicate(1, ends.size()), ends.transpose());
      const Vector below = distribution.head(sides + 1).array().square().matrix();
      const Vector above = (1.0 - distribution.tail(sides + 1).array()).square().matrix();
      const double integral =
          test::simpson(ends.head(sides + 1), below) + test::simpson(ends.tail(sides + 1), above);
      EXPECT_NEAR(scores(j), integral, 1e-6 * integral) << j;
    }
  }
}

TEST(PooledMixtureTest, SamplesFollowThePoolAndTheModelFileKeepsEveryAnswer) {
  for (const bool own_standardisations : {false, true}) {
    SCOPED_TRACE(own_standardisations ? "members of their own standardisations" : "one");
    const ConditionalMixture pool = pool_of(fitted_members(own_standardisations));
    const Matrix x = query_inputs().leftCols(2);
    const Matrix draws = pool.sample(x, 20000, 4);
    const Vector mean = pool.mean(x).row(0).transpose();
    const Vector spread = pool.covariance(x).row(0).transpose().cwiseSqrt();
    for (Index j = 0; j < 2; ++j) {
      const double sample_mean = draws.middleCols(j * 20000, 20000).mean();
      // Five standard errors of a mean of 20,000 draws.
      EXPECT_NEAR(sample_mean, mean(j), 5.0 * spread(j) / std::sqrt(20000.0)) << j;
    }
    ConditionalModel model{pool, {"a", "b"}, {"y"}, {}, {}};
    model.report.method = "auto";
    const std::string path = test::temporary_path("pool.json");
    save_conditional_model(model, path);
    const ConditionalModel loaded = load_conditional_model(path);
    std::filesystem::remove(path);
    const test::PairSample targets = test::sine_sample(2, 2, 79);
    EXPECT_EQ(loaded.mixture.log_pdf(x, targets.y), pool.log_pdf(x, targets.y));
    EXPECT_EQ(loaded.mixture.quantiles(x, {0.1, 0.9}), pool.quantiles(x, {0.1, 0.9}));
  }
}

TEST(PooledMixtureTest, NormalisedWeightsAreKeptToTheBit) {
  const Members members = fitted_members();
  std::vector<std::shared_ptr<const ConditionalGate>> gates;
  for (const ConditionalFit& fit : members.fits) gates.push_back(fit.model.shared_gate());
  // Weights whose sum is 1 − 1 ulp: dividing by it moves their last bits (the pool of an auto
  // fit read back from its file scored 9e−16 off the pool written).
  const Vector weights = (Vector(4) << 0.9695427683923015, 0.030457231607698664 * 0.5,
                          0.030457231607698664 * 0.25, 0.030457231607698664 * 0.25)
                             .finished();
  const PooledGate pooled(gates, weights);
  EXPECT_EQ(pooled.weights(), weights);
  EXPECT_EQ(PooledGate(gates, pooled.weights()).weights(), pooled.weights());
  // Weights of another scale are normalised.
  const PooledGate scaled(gates, 8.0 * weights);
  EXPECT_NEAR(scaled.weights().sum(), 1.0, 1e-15);
  EXPECT_NEAR((scaled.weights() - weights).cwiseAbs().maxCoeff(), 0.0, 1e-15);
}

TEST(PooledMixtureTest, MembersOfOtherDataArePooledAndOtherOutputsRefused) {
  const Members members = fitted_members();
  const test::PairSample other = test::sine_sample(90, 2, 32);
  const ConditionalFit stranger = fit_linear(other.x, other.y);
  // Any two conditional densities of the same x and y make a pool.
  const ConditionalMixture pool =
      pool_mixtures({&members.fits[0].model, &stranger.model}, Vector::Ones(2));
  const Matrix x = query_inputs();
  const test::PairSample targets = test::sine_sample(9, 2, 78);
  const Vector expected = (0.5 * members.fits[0].model.log_pdf(x, targets.y).array().exp() +
                           0.5 * stranger.model.log_pdf(x, targets.y).array().exp())
                              .log()
                              .matrix();
  EXPECT_LT((pool.log_pdf(x, targets.y) - expected).cwiseAbs().maxCoeff(), 1e-10);
  const test::PairSample wider = test::sine_sample(90, 3, 32);
  const ConditionalFit three_inputs = fit_linear(wider.x, wider.y);
  EXPECT_THROW(pool_mixtures({&members.fits[0].model, &three_inputs.model}, Vector::Ones(2)),
               InvalidArgument);
  EXPECT_THROW(pool_mixtures({&members.fits[0].model}, Vector::Ones(2)), InvalidArgument);
  EXPECT_THROW(pool_mixtures({&members.fits[0].model, &members.fits[1].model},
                             (Vector(2) << 1.0, 0.0).finished()),
               InvalidArgument);
}

}  // namespace
}  // namespace cdens

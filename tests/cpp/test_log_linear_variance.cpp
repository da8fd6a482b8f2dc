// The heteroscedastic linear-Gaussian baseline (variance = log_linear / auto) and the scale trend
// of the conditional mixture behind it: every query of a mixture with a scale trend against the
// same mixture with its scales multiplied by f(x), the maximum-likelihood fit against
// perturbations of each parameter and against the truth at large n, the one-step leave-one-out
// likelihood against explicit refits, the choice of spread, and degenerate fits.

#include <gtest/gtest.h>

#include <cmath>

#include "cdens/cdens.hpp"
#include "cdens/evaluation/scores.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// y = 1 + 2 x_0 − x_1 + exp(−0.5 + 0.6 x_0) ε with x ~ N(0, I₂): the spread grows with x_0.
test::PairSample heteroscedastic_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(2, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    sample.y(0, i) = 1.0 + 2.0 * sample.x(0, i) - sample.x(1, i) +
                     std::exp(-0.5 + 0.6 * sample.x(0, i)) * rng.normal();
  }
  return sample;
}

ConditionalFit fit_with(const test::PairSample& data, LinearVariance variance) {
  LinearGaussianOptions options;
  options.variance = variance;
  return fit_linear_gaussian(data.x, data.y, options);
}

TEST(ScaleTrendTest, QueriesAreThoseOfTheMixtureWithScalesTimesTheFactor) {
  // A scale trend Γ multiplies every component's scale by f(x) = exp(Γ z(x)): each query at x_j
  // must equal the query of the same mixture whose scales are multiplied by f(x_j).
  const ConditionalFit kernel = test::small_kernel_fit();
  const ConditionalMixture& plain = kernel.model;
  const Matrix trend = (Matrix(1, 2) << 0.7, -0.4).finished();
  const Matrix scale_trend = (Matrix(1, 2) << 0.5, 0.3).finished();
  const ConditionalMixture widened(plain.x_scaling(), plain.y_scaling(), plain.shared_gate(),
                                   plain.centers(), plain.scales(), trend, {}, scale_trend);
  const test::PairSample queries = test::sine_sample(6, 2, 7);
  const Matrix factors = widened.scale_factors_at(queries.x);
  const Matrix grid = Eigen::RowVectorXd::LinSpaced(40, 2.5, 5.5);
  const Vector log_density = widened.log_pdf(queries.x, queries.y);
  const Vector cdf = widened.cdf(queries.x, queries.y);
  const Vector hdp = widened.highest_density_probability(queries.x, queries.y);
  const Matrix quantiles = widened.quantiles(queries.x, {0.1, 0.5, 0.9});
  const Matrix means = widened.mean(queries.x);
  const Matrix covariances = widened.covariance(queries.x);
  const Vector squared_norms = widened.squared_norm(queries.x);
  const Matrix grid_densities = widened.pdf_grid(queries.x, grid);
  const Vector crps_values = crps(widened, queries.x, queries.y);
  for (Index j = 0; j < 6; ++j) {
    const double factor =
        std::exp((scale_trend * plain.x_scaling().transform(queries.x.col(j)))(0, 0));
    EXPECT_NEAR(factors(0, j), factor, 1e-12 * factor);
    const ConditionalMixture at_x(plain.x_scaling(), plain.y_scaling(), plain.shared_gate(),
                                  plain.centers(), factor * plain.scales(), trend);
    const Matrix x = queries.x.col(j);
    const Matrix y = queries.y.col(j);
    EXPECT_NEAR(log_density(j), at_x.log_pdf(x, y)(0), 1e-12);
    EXPECT_NEAR(cdf(j), at_x.cdf(x, y)(0), 1e-12);
    EXPECT_NEAR(hdp(j), at_x.highest_density_probability(x, y)(0), 1e-9);
    EXPECT_TRUE(quantiles.col(j).isApprox(at_x.quantiles(x, {0.1, 0.5, 0.9}).col(0), 1e-10));
    EXPECT_TRUE(means.col(j).isApprox(at_x.mean(x).col(0), 1e-12));
    EXPECT_TRUE(covariances.col(j).isApprox(at_x.covariance(x).col(0), 1e-12));
    EXPECT_NEAR(squared_norms(j), at_x.squared_norm(x)(0), 1e-12 * squared_norms(j));
    EXPECT_TRUE(grid_densities.col(j).isApprox(at_x.pdf_grid(x, grid).col(0), 1e-12));
    EXPECT_NEAR(crps_values(j), crps(at_x, x, y)(0), 1e-12);
    const auto region = widened.highest_density_regions(x, 0.8)[0];
    const auto expected_region = at_x.highest_density_regions(x, 0.8)[0];
    ASSERT_EQ(region.intervals.size(), expected_region.intervals.size());
    for (std::size_t r = 0; r < region.intervals.size(); ++r) {
      EXPECT_NEAR(region.intervals[r].lower, expected_region.intervals[r].lower, 1e-9);
      EXPECT_NEAR(region.intervals[r].upper, expected_region.intervals[r].upper, 1e-9);
    }
    // Samples for one input come from its own stream: the same draws as the widened mixture's.
    EXPECT_TRUE(widened.sample(x, 5, 3).isApprox(at_x.sample(x, 5, 3), 1e-12));
  }
  test::expect_model_file_round_trip(widened, kernel.report, queries.x, queries.y);
}

TEST(ScaleTrendTest, FarInputsGetFiniteDensitiesAndAreRefusedWithDiscreteOutputs) {
  const test::PairSample train = heteroscedastic_sample(200, 1);
  const ConditionalFit fit = fit_with(train, LinearVariance::log_linear);
  const Matrix far = (Matrix(2, 2) << 1e12, -1e12, 0.0, 0.0).finished();
  const Matrix y = (Matrix(1, 2) << 1.0, 1.0).finished();
  const Vector factors = fit.model.scale_factors_at(far).row(0).transpose();
  EXPECT_TRUE(factors.allFinite());
  EXPECT_NEAR(std::log(factors.maxCoeff()), ConditionalMixture::kLogScaleFactorLimit, 1e-12);
  EXPECT_TRUE(fit.model.log_pdf(far, y).allFinite() ||
              (fit.model.log_pdf(far, y).array() == -INFINITY).all());
  EXPECT_TRUE(fit.model.quantiles(far, {0.5}).allFinite());
  const ColumnKernels discrete = {ColumnKernel(ColumnKind::unordered, {0.0, 1.0})};
  EXPECT_THROW(
      ConditionalMixture(fit.model.x_scaling(), Standardizer::identity(1), fit.model.shared_gate(),
                         Matrix::Zero(1, 1), Matrix::Constant(1, 1, 0.5), Matrix(), discrete,
                         Matrix::Ones(1, 2)),
      InvalidArgument);
}

TEST(LogLinearVarianceTest, FitIsAMaximumOfTheLikelihoodInEveryParameter) {
  // Moving any one parameter of the fitted model (intercept, slopes, log-scale intercept and
  // slopes) by ±1e-4 lowers the training log-likelihood: a stationary maximum.
  const test::PairSample train = heteroscedastic_sample(300, 2);
  const ConditionalMixture& fitted = fit_with(train, LinearVariance::log_linear).model;
  const double best = fitted.log_pdf(train.x, train.y).sum();
  const auto likelihood_moved = [&](int parameter, double step) {
    Matrix centers = fitted.centers();
    Matrix scales = fitted.scales();
    Matrix trend = fitted.trend();
    Matrix scale_trend = fitted.scale_trend();
    if (parameter == 0) centers(0, 0) += step;
    if (parameter == 1 || parameter == 2) trend(0, parameter - 1) += step;
    if (parameter == 3) scales(0, 0) *= std::exp(step);
    if (parameter >= 4) scale_trend(0, parameter - 4) += step;
    const ConditionalMixture moved(fitted.x_scaling(), fitted.y_scaling(), fitted.shared_gate(),
                                   centers, scales, trend, {}, scale_trend);
    return moved.log_pdf(train.x, train.y).sum();
  };
  for (int parameter = 0; parameter < 6; ++parameter) {
    const double up = likelihood_moved(parameter, 1e-4);
    const double down = likelihood_moved(parameter, -1e-4);
    EXPECT_LT(up, best) << "parameter " << parameter;
    EXPECT_LT(down, best) << "parameter " << parameter;
    // The first derivative vanishes: the change is second order, (up − down) ≪ the step.
    EXPECT_LT(std::abs(up - down), 1e-6) << "parameter " << parameter;
  }
}

TEST(LogLinearVarianceTest, RecoversTheTruthAtLargeN) {
  // n = 20,000: the standard errors of the slopes are below 0.01 (about 1/√(2n) = 0.005 for the
  // log-scale slope, exp(−0.5)/√n ≈ 0.004 for the mean's), so 0.03 is six of them.
  const test::PairSample train = heteroscedastic_sample(20000, 3);
  const ConditionalMixture& model = fit_with(train, LinearVariance::log_linear).model;
  const Matrix x = (Matrix(2, 3) << 0.0, 1.0, 0.0, 0.0, 0.0, 1.0).finished();
  const Matrix means = model.mean(x);
  const Matrix sd = model.covariance(x).array().sqrt();
  EXPECT_NEAR(means(0, 0), 1.0, 0.03);
  EXPECT_NEAR(means(0, 1) - means(0, 0), 2.0, 0.03);
  EXPECT_NEAR(means(0, 2) - means(0, 0), -1.0, 0.03);
  EXPECT_NEAR(std::log(sd(0, 0)), -0.5, 0.03);
  EXPECT_NEAR(std::log(sd(0, 1) / sd(0, 0)), 0.6, 0.03);
  EXPECT_NEAR(std::log(sd(0, 2) / sd(0, 0)), 0.0, 0.03);
}

/// The mean over pairs of −log p(y_i | x_i) of the log-linear fit to the other n − 1 pairs.
double explicit_leave_one_out_nll(const test::PairSample& train) {
  const Index n = train.x.cols();
  double total = 0.0;
  for (Index i = 0; i < n; ++i) {
    std::vector<Index> rest;
    for (Index j = 0; j < n; ++j) {
      if (j != i) rest.push_back(j);
    }
    const test::PairSample without{gather_samples(train.x, rest), gather_samples(train.y, rest)};
    total -= fit_with(without, LinearVariance::log_linear)
                 .model.log_pdf(train.x.col(i), train.y.col(i))(0);
  }
  return total / static_cast<double>(n);
}

TEST(LogLinearVarianceTest, LeaveOneOutLikelihoodEqualsExplicitRefits) {
  // Up to 500 pairs the criterion refits without each pair: equal to the explicit refits (each
  // with its own standardisation; the model is affine-equivariant) to the convergence of Newton's
  // method.
  const test::PairSample train = heteroscedastic_sample(60, 4);
  const ConditionalFit fit = fit_with(train, LinearVariance::log_linear);
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), explicit_leave_one_out_nll(train), 1e-7);
  EXPECT_EQ(fit.report.statistics.at("loo_nll"),
            fit.report.statistics.at("loo_nll_log_linear_variance"));
}

TEST(LogLinearVarianceTest, OneStepLeaveOneOutLikelihoodIsCloseToExplicitRefits) {
  // Beyond 500 pairs one Newton step per pair stands in for each refit; its error is of the order
  // of the squared step (measured 0.5–1.6·10⁻⁴ nats at n = 501 and 600), far below the tenths of
  // a nat between the spreads the criterion chooses from.
  const test::PairSample train = heteroscedastic_sample(520, 8);
  const double one_step =
      fit_with(train, LinearVariance::log_linear).report.statistics.at("loo_nll");
  EXPECT_NEAR(one_step, explicit_leave_one_out_nll(train), 1e-3);
}

TEST(LogLinearVarianceTest, AutoChoosesTheSpreadWithTheLowerLeaveOneOutLikelihood) {
  const ConditionalFit spread =
      fit_linear_gaussian(heteroscedastic_sample(400, 5).x, heteroscedastic_sample(400, 5).y);
  EXPECT_EQ(spread.report.statistics.at("log_linear_outputs"), 1.0);
  EXPECT_LT(spread.report.statistics.at("loo_nll_log_linear_variance"),
            spread.report.statistics.at("loo_nll_constant_variance") - 0.05);
  EXPECT_EQ(spread.model.scale_trend().rows(), 1);
  // Homoscedastic: y = x_0 + ε; the log-linear spread has two parameters more to pay for.
  Rng rng(6);
  test::PairSample flat{test::normal_matrix(2, 400, rng), Matrix(1, 400)};
  for (Index i = 0; i < 400; ++i) flat.y(0, i) = flat.x(0, i) + rng.normal();
  const ConditionalFit constant = fit_linear_gaussian(flat.x, flat.y);
  EXPECT_EQ(constant.report.statistics.at("log_linear_outputs"), 0.0);
  EXPECT_EQ(constant.model.scale_trend().size(), 0);
  EXPECT_EQ(constant.report.statistics.at("loo_nll"),
            constant.report.statistics.at("loo_nll_constant_variance"));
}

TEST(LogLinearVarianceTest, SpreadCollapsingOntoTiedOutputsIsRefusedOrNotChosen) {
  // Where the binary input x_1 is 1, y is exactly 3: the mean fits those pairs exactly and a
  // log-linear spread shrinks to zero there without bound. variance = log_linear refuses it
  // naming the cause; auto keeps the constant spread.
  Rng rng(7);
  test::PairSample tied{test::normal_matrix(2, 100, rng), Matrix(1, 100)};
  for (Index i = 0; i < 100; ++i) {
    tied.x(1, i) = i % 2;
    tied.y(0, i) = i % 2 == 1 ? 3.0 : rng.normal();
  }
  try {
    fit_with(tied, LinearVariance::log_linear);
    ADD_FAILURE() << "a collapsing spread was accepted";
  } catch (const DataError& error) {
    EXPECT_NE(std::string(error.what()).find("output 0"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("variance = constant"), std::string::npos);
  }
  const ConditionalFit automatic = fit_with(tied, LinearVariance::automatic);
  EXPECT_EQ(automatic.report.statistics.at("log_linear_outputs"), 0.0);
  EXPECT_EQ(automatic.report.statistics.count("loo_nll_log_linear_variance"), 0u);
  EXPECT_THROW(parse_linear_variance("quadratic"), InvalidArgument);
}

}  // namespace
}  // namespace cdens

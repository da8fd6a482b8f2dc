// The heteroscedastic linear-Gaussian baseline (variance = log_linear / auto) and the scale trend
// of the conditional mixture behind it: every query of a mixture with a scale trend against the
// same mixture with its scales multiplied by f(x), the maximum-likelihood fit against
// perturbations of each parameter and against the truth at large n, the one-step leave-one-out
// likelihood against explicit refits, the choice of spread, and degenerate fits.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/cdens.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/samples.hpp"
#include "io/json_io.hpp"
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
  LinearOptions options;
  options.variance = variance;
  return fit_linear(data.x, data.y, options);
}

/// Every query of `trended` at x_j against the same mixture without the trend's x-dependence:
/// its centres and scales multiplied by f(x_j) and moved by the constant μ(x_j) (a linear trend
/// with zero slopes), which is what the location-scale map t = μ + f e means.
void expect_queries_of_the_location_scale_map(const ConditionalMixture& trended,
                                              const FitReport& report) {
  const test::PairSample queries = test::sine_sample(6, 2, 7);
  const Matrix factors = trended.scale_factors_at(queries.x);
  const Matrix shifts = trended.trend_at(queries.x);
  const Matrix grid = Eigen::RowVectorXd::LinSpaced(40, 2.5, 5.5);
  const Vector log_density = trended.log_pdf(queries.x, queries.y);
  const Vector cdf = trended.cdf(queries.x, queries.y);
  const Vector hdp = trended.highest_density_probability(queries.x, queries.y);
  const Matrix quantiles = trended.quantiles(queries.x, {0.1, 0.5, 0.9});
  const Matrix means = trended.mean(queries.x);
  const Matrix covariances = trended.covariance(queries.x);
  const Vector squared_norms = trended.squared_norm(queries.x);
  const Matrix grid_densities = trended.pdf_grid(queries.x, grid);
  const Vector crps_values = crps(trended, queries.x, queries.y);
  const Index d_x = trended.input_dim();
  for (Index j = 0; j < 6; ++j) {
    const double factor = factors(0, j);
    const ConditionalMixture at_x(
        trended.x_scaling(), trended.y_scaling(), trended.shared_gate(),
        MixtureOutputs::gaussian(factor * trended.centers(), factor * trended.scales())
            .with_trend(std::make_shared<const LinearTrend>(shifts.col(j), Matrix::Zero(1, d_x))));
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
    const auto region = trended.highest_density_regions(x, 0.8)[0];
    const auto expected_region = at_x.highest_density_regions(x, 0.8)[0];
    ASSERT_EQ(region.intervals.size(), expected_region.intervals.size());
    for (std::size_t r = 0; r < region.intervals.size(); ++r) {
      EXPECT_NEAR(region.intervals[r].lower, expected_region.intervals[r].lower, 1e-9);
      EXPECT_NEAR(region.intervals[r].upper, expected_region.intervals[r].upper, 1e-9);
    }
    // Samples for one input come from its own stream: the same draws as the trended mixture's.
    EXPECT_TRUE(trended.sample(x, 5, 3).isApprox(at_x.sample(x, 5, 3), 1e-12));
  }
  test::expect_model_file_round_trip(trended, report, queries.x, queries.y);
}

TEST(ScaleTrendTest, QueriesAreThoseOfTheMixtureMovedAndWidenedAtEachInput) {
  // A linear trend with a scale: μ = 0.3 + A z, f = exp(Γ z).
  const ConditionalFit kernel = test::small_kernel_fit();
  const ConditionalMixture& plain = kernel.model;
  const ConditionalMixture widened(
      plain.x_scaling(), plain.y_scaling(), plain.shared_gate(),
      plain.outputs().with_trend(std::make_shared<const LinearTrend>(
          Vector::Constant(1, 0.3), (Matrix(1, 2) << 0.7, -0.4).finished(),
          (Matrix(1, 2) << 0.5, 0.3).finished())));
  const Matrix x = test::sine_sample(6, 2, 7).x;
  const Matrix log_factors = widened.scale_factors_at(x).array().log();
  EXPECT_TRUE(log_factors.isApprox(
      (Matrix(1, 2) << 0.5, 0.3).finished() * plain.x_scaling().transform(x), 1e-12));
  expect_queries_of_the_location_scale_map(widened, kernel.report);
}

TEST(ScaleTrendTest, GaussianProcessTrendQueriesAreThoseOfTheMovedAndWidenedMixture) {
  const ConditionalFit kernel = test::small_kernel_fit();
  const ConditionalMixture& plain = kernel.model;
  GaussianProcessOutput process;
  process.intercept = -0.2;
  process.slopes = (Vector(2) << 0.4, 0.1).finished();
  process.length_scales = (Vector(2) << 0.8, 1.7).finished();
  process.signal_variance = 0.6;
  process.noise_variance = 0.05;
  process.weights = (Vector(3) << 0.5, -1.0, 0.25).finished();
  process.variance_factor = (Matrix(3, 2) << 0.3, 0.1, -0.2, 0.4, 0.5, 0.0).finished();
  const Matrix centers = (Matrix(2, 3) << -1.0, 0.0, 1.2, 0.5, -0.3, 0.9).finished();
  const ConditionalMixture trended(
      plain.x_scaling(), plain.y_scaling(), plain.shared_gate(),
      plain.outputs().with_trend(
          std::make_shared<const GaussianProcessTrend>(centers, std::vector{process})));
  // μ and f against the formulas written out for one input.
  const Matrix x = test::sine_sample(1, 2, 3).x;
  const Vector z = plain.x_scaling().transform(x).col(0);
  double mean = process.intercept + process.slopes.dot(z);
  Vector kernel_values(3);
  for (Index l = 0; l < 3; ++l) {
    kernel_values(l) =
        process.signal_variance *
        std::exp(-0.5 * (z - centers.col(l)).cwiseQuotient(process.length_scales).squaredNorm());
    mean += process.weights(l) * kernel_values(l);
  }
  const double variance =
      process.noise_variance +
      std::max(0.0, process.signal_variance -
                        (process.variance_factor.transpose() * kernel_values).squaredNorm());
  EXPECT_NEAR(trended.trend_at(x)(0, 0), mean, 1e-12);
  EXPECT_NEAR(trended.scale_factors_at(x)(0, 0), std::sqrt(variance), 1e-12);
  expect_queries_of_the_location_scale_map(trended, kernel.report);
}

TEST(ScaleTrendTest, FarInputsGetFiniteDensitiesAndAreRefusedWithDiscreteOutputs) {
  const test::PairSample train = heteroscedastic_sample(200, 1);
  const ConditionalFit fit = fit_with(train, LinearVariance::log_linear);
  const Matrix far = (Matrix(2, 2) << 1e12, -1e12, 0.0, 0.0).finished();
  const Matrix y = (Matrix(1, 2) << 1.0, 1.0).finished();
  const Vector factors = fit.model.scale_factors_at(far).row(0).transpose();
  EXPECT_TRUE(factors.allFinite());
  EXPECT_NEAR(std::log(factors.maxCoeff()), LinearTrend::kLogScaleLimit, 1e-12);
  EXPECT_TRUE(fit.model.log_pdf(far, y).allFinite() ||
              (fit.model.log_pdf(far, y).array() == -INFINITY).all());
  EXPECT_TRUE(fit.model.quantiles(far, {0.5}).allFinite());
  const ColumnKernels discrete = {ColumnKernel(ColumnKind::unordered, {0.0, 1.0})};
  EXPECT_THROW(
      ConditionalMixture(fit.model.x_scaling(), Standardizer::identity(1), fit.model.shared_gate(),
                         MixtureOutputs::gaussian(Matrix::Zero(1, 1), Matrix::Constant(1, 1, 0.5))
                             .with_trend(fit.model.trend())
                             .with_output_kernels(discrete)),
      InvalidArgument);
}

TEST(ScaleTrendTest, FilesWrittenBeforeTrendKindsLoadToTheSameDensities) {
  // Before output trends had a kind, the model kept A as "trend" and Γ as "scale_trend" (which
  // widened the components without moving them) and the line's intercept as the one centre.
  const test::PairSample train = heteroscedastic_sample(200, 3);
  const ConditionalMixture fitted = fit_with(train, LinearVariance::log_linear).model;
  const auto& line = dynamic_cast<const LinearTrend&>(*fitted.trend());
  nlohmann::json old = fitted.to_json();
  old.erase("output_trend");
  old["centers"] = matrix_to_json(Matrix(line.intercept()));
  old["trend"] = matrix_to_json(line.slopes());
  old["scale_trend"] = matrix_to_json(line.log_scale_slopes());
  const ConditionalMixture loaded = ConditionalMixture::from_json(old, read_builtin_gate);
  const test::PairSample queries = heteroscedastic_sample(20, 4);
  EXPECT_TRUE(
      loaded.log_pdf(queries.x, queries.y).isApprox(fitted.log_pdf(queries.x, queries.y), 1e-12));
  // Only the one-component baseline wrote Γ: with several centres such a file is refused.
  old["centers"] = matrix_to_json(Matrix::Zero(1, 2));
  old["scales"] = matrix_to_json(Matrix::Ones(1, 2));
  old["gate"]["log_weights"] = nlohmann::json::array({0.0, 0.0});
  EXPECT_THROW(ConditionalMixture::from_json(old, read_builtin_gate), ModelFormatError);
}

TEST(LogLinearVarianceTest, FitIsAMaximumOfTheLikelihoodInEveryParameter) {
  // Moving any one parameter of the fitted model (intercept, slopes, log-scale intercept and
  // slopes) by ±1e-4 lowers the training log-likelihood: a stationary maximum.
  const test::PairSample train = heteroscedastic_sample(300, 2);
  const ConditionalMixture& fitted = fit_with(train, LinearVariance::log_linear).model;
  const double best = fitted.log_pdf(train.x, train.y).sum();
  const auto likelihood_moved = [&](int parameter, double step) {
    const auto& line = dynamic_cast<const LinearTrend&>(*fitted.trend());
    Vector intercept = line.intercept();
    Matrix scales = fitted.scales();
    Matrix slopes = line.slopes();
    Matrix scale_slopes = line.log_scale_slopes();
    if (parameter == 0) intercept(0) += step;
    if (parameter == 1 || parameter == 2) slopes(0, parameter - 1) += step;
    if (parameter == 3) scales(0, 0) *= std::exp(step);
    if (parameter >= 4) scale_slopes(0, parameter - 4) += step;
    const ConditionalMixture moved(
        fitted.x_scaling(), fitted.y_scaling(), fitted.shared_gate(),
        MixtureOutputs::gaussian(fitted.centers(), scales)
            .with_trend(std::make_shared<const LinearTrend>(intercept, slopes, scale_slopes)));
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
      fit_linear(heteroscedastic_sample(400, 5).x, heteroscedastic_sample(400, 5).y);
  EXPECT_EQ(spread.report.statistics.at("log_linear_outputs"), 1.0);
  EXPECT_LT(spread.report.statistics.at("loo_nll_log_linear_variance"),
            spread.report.statistics.at("loo_nll_constant_variance") - 0.05);
  EXPECT_TRUE(spread.model.trend()->has_scale());
  // Homoscedastic: y = x_0 + ε; the log-linear spread has two parameters more to pay for.
  Rng rng(6);
  test::PairSample flat{test::normal_matrix(2, 400, rng), Matrix(1, 400)};
  for (Index i = 0; i < 400; ++i) flat.y(0, i) = flat.x(0, i) + rng.normal();
  const ConditionalFit constant = fit_linear(flat.x, flat.y);
  EXPECT_EQ(constant.report.statistics.at("log_linear_outputs"), 0.0);
  EXPECT_FALSE(constant.model.trend()->has_scale());
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

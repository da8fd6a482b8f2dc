// Tests of output transforms (core/output_transform.hpp) and of the conditional mixture's queries
// through them: the maps against their formulas and finite differences; a mixture through the
// identity member of the Yeo–Johnson family against the same mixture without a transform (whose
// queries have closed forms); one component through the log map against the log-normal
// distribution's closed forms; densities integrating to 1 in y's units; and the fits on a
// transformed output against the same estimator fitted to B(y) by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/conditional/linear.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/output_transform_fit.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using namespace test;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

/// The same mixture with `transform` on every trend group.
ConditionalMixture with_transform(const ConditionalMixture& model,
                                  std::shared_ptr<const OutputTransform> transform) {
  std::vector<TrendGroup> groups = model.trend_groups();
  for (TrendGroup& group : groups) group.transform = transform;
  return ConditionalMixture(model.x_scaling(), model.y_scaling(), model.shared_gate(),
                            model.outputs().with_groups(std::move(groups)));
}

/// One component N(c, s²) in t through t = (log y − m) / S: y | x is log-normal with
/// μ = m + S c and σ = S s, for every x.
struct LogNormalModel {
  double mu = 0.4;
  double sigma = 0.6;
  ConditionalMixture model() const {
    const double m = 0.1;
    const double scale = 2.0;
    Matrix centers(1, 1);
    centers(0, 0) = (mu - m) / scale;
    Matrix scales(1, 1);
    scales(0, 0) = sigma / scale;
    return ConditionalMixture(
        Standardizer::identity(1), Standardizer(Vector::Constant(1, 3.0), Vector::Constant(1, 5.0)),
        std::make_shared<const ConstantGate>(1, Vector::Zero(1)),
        MixtureOutputs::gaussian(centers, scales)
            .with_groups(
                {{0, nullptr,
                  std::make_shared<const OutputTransform>(OutputTransform::log(m, scale))}}));
  }
  double log_pdf(double y) const {
    const double z = (std::log(y) - mu) / sigma;
    return -0.5 * z * z - std::log(y * sigma * std::sqrt(2.0 * M_PI));
  }
  double cdf(double y) const { return normal_cdf((std::log(y) - mu) / sigma); }
  /// Baran & Lerch (2015), eq. (5): the CRPS of the log-normal distribution.
  double crps(double y) const {
    const double z = (std::log(y) - mu) / sigma;
    return y * (2.0 * normal_cdf(z) - 1.0) -
           2.0 * std::exp(mu + 0.5 * sigma * sigma) *
               (normal_cdf(z - sigma) + normal_cdf(sigma / std::sqrt(2.0)) - 1.0);
  }
};

TEST(OutputTransform, MapsInvertAndTheirLogDerivativesMatchFiniteDifferences) {
  std::vector<OutputTransform> transforms = {OutputTransform::log(0.3, 1.7)};
  for (const double lambda : {0.0, 0.3, 1.0, 1.6, 2.0}) {
    transforms.push_back(OutputTransform::yeo_johnson(lambda, 1.5, 2.5, -0.2, 0.8));
  }
  for (const OutputTransform& transform : transforms) {
    for (const double y : {-30.0, -2.0, -0.1, 0.05, 1.5, 2.0, 9.0, 400.0}) {
      if (!transform.in_domain(y)) continue;
      const double t = transform.forward(y);
      EXPECT_NEAR(transform.inverse(t), y, 1e-11 * (1.0 + std::abs(y)))
          << to_string(transform.kind()) << " λ = " << transform.lambda() << " y = " << y;
      const double h = 1e-6 * (1.0 + std::abs(y));
      const double slope = (transform.forward(y + h) - transform.forward(y - h)) / (2.0 * h);
      EXPECT_NEAR(transform.log_derivative(y), std::log(slope), 1e-7)
          << to_string(transform.kind()) << " λ = " << transform.lambda() << " y = " << y;
    }
  }
  // λ = 1 is the identity on the standardised output; λ = 0 the log of 1 + v above the mean.
  const OutputTransform identity = OutputTransform::yeo_johnson(1.0, 1.5, 2.5, 0.0, 1.0);
  EXPECT_NEAR(identity.forward(-4.0), (-4.0 - 1.5) / 2.5, 1e-15);
  EXPECT_NEAR(identity.forward(7.0), (7.0 - 1.5) / 2.5, 1e-15);
  EXPECT_NEAR(OutputTransform::yeo_johnson(0.0, 1.5, 2.5, 0.0, 1.0).forward(7.0),
              std::log1p((7.0 - 1.5) / 2.5), 1e-15);
  EXPECT_FALSE(OutputTransform::log(0.0, 1.0).in_domain(0.0));
  EXPECT_THROW(OutputTransform::yeo_johnson(2.5, 0.0, 1.0, 0.0, 1.0), InvalidArgument);
}

TEST(OutputTransform, IdentityTransformGivesEveryQueryOfTheUntransformedMixture) {
  const ConditionalFit fit = small_kernel_fit();
  const ConditionalMixture& plain = fit.model;
  const double mean = plain.y_scaling().mean()(0);
  const double scale = plain.y_scaling().scale()(0);
  const ConditionalMixture identity =
      with_transform(plain, std::make_shared<const OutputTransform>(
                                OutputTransform::yeo_johnson(1.0, mean, scale, 0, 1)));
  ASSERT_TRUE(identity.has_output_transform());
  const PairSample data = sine_sample(12, 2, 21);
  const Matrix& x = data.x;
  const Matrix& y = data.y;
  EXPECT_LT((identity.log_pdf(x, y) - plain.log_pdf(x, y)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((identity.cdf(x, y) - plain.cdf(x, y)).cwiseAbs().maxCoeff(), 1e-12);
  const std::vector<double> levels = {0.025, 0.3, 0.5, 0.9};
  EXPECT_LT((identity.quantiles(x, levels) - plain.quantiles(x, levels)).cwiseAbs().maxCoeff(),
            1e-9 * scale);
  EXPECT_LT((identity.mean(x) - plain.mean(x)).cwiseAbs().maxCoeff(), 1e-10 * scale);
  EXPECT_LT((identity.covariance(x) - plain.covariance(x)).cwiseAbs().maxCoeff(),
            1e-9 * scale * scale);
  const Matrix grid = y.leftCols(5);
  EXPECT_LT((identity.pdf_grid(x, grid) - plain.pdf_grid(x, grid)).cwiseAbs().maxCoeff(),
            1e-12 / scale);
  // The grid-based queries: within the grid's resolution (1,024 points over the range, plus
  // points around every component).
  const Vector crps_closed = crps(plain, x, y);
  const Vector crps_grid = identity.crps(x, y);
  EXPECT_LT((crps_closed - crps_grid).cwiseAbs().maxCoeff(), 1e-4 * scale);
  EXPECT_LT((crps(identity, x, y) - crps_closed).cwiseAbs().maxCoeff(), 1e-4 * scale);
  const Vector norms = plain.squared_norm(x);
  EXPECT_LT(((identity.squared_norm(x) - norms).array() / norms.array()).abs().maxCoeff(), 1e-3);
  EXPECT_LT((identity.highest_density_probability(x, y) - plain.highest_density_probability(x, y))
                .cwiseAbs()
                .maxCoeff(),
            1e-3);
  const auto exact = plain.highest_density_regions(x, 0.8);
  const auto gridded = identity.highest_density_regions(x, 0.8);
  for (std::size_t j = 0; j < exact.size(); ++j) {
    ASSERT_EQ(exact[j].intervals.size(), gridded[j].intervals.size()) << "input " << j;
    for (std::size_t i = 0; i < exact[j].intervals.size(); ++i) {
      EXPECT_NEAR(gridded[j].intervals[i].lower, exact[j].intervals[i].lower, 2e-3 * scale);
      EXPECT_NEAR(gridded[j].intervals[i].upper, exact[j].intervals[i].upper, 2e-3 * scale);
    }
    EXPECT_NEAR(gridded[j].density_threshold / exact[j].density_threshold, 1.0, 1e-3);
  }
  EXPECT_THROW(identity.scalar_components(x), InvalidArgument);
}

TEST(OutputTransform, LogMapGivesTheLogNormalDistribution) {
  const LogNormalModel truth;
  const ConditionalMixture model = truth.model();
  const std::vector<double> points = {0.05, 0.4, 1.0, 1.49, 3.0, 12.0};
  Matrix x = Matrix::Zero(1, static_cast<Index>(points.size()));
  Matrix y(1, x.cols());
  for (Index j = 0; j < x.cols(); ++j) y(0, j) = points[static_cast<std::size_t>(j)];
  const Vector log_pdf = model.log_pdf(x, y);
  const Vector cdf = model.cdf(x, y);
  const Vector crps_values = crps(model, x, y);
  const Vector hdp = model.highest_density_probability(x, y);
  for (Index j = 0; j < x.cols(); ++j) {
    EXPECT_NEAR(log_pdf(j), truth.log_pdf(y(0, j)), 1e-12) << "y = " << y(0, j);
    EXPECT_NEAR(cdf(j), truth.cdf(y(0, j)), 1e-14) << "y = " << y(0, j);
    // The trapezoid rule on the grid, 1,024 points in log y: within 1e-4 relative.
    EXPECT_NEAR(crps_values(j), truth.crps(y(0, j)), 1e-4 * truth.crps(y(0, j)))
        << "y = " << y(0, j);
    // The region of density ≥ p(y): the other end has the same density (found here by
    // bisection on the side of the mode y is not on).
    const double mode = std::exp(truth.mu - truth.sigma * truth.sigma);
    const double level = truth.log_pdf(y(0, j));
    double low = y(0, j) < mode ? mode : 1e-12;
    double high = y(0, j) < mode ? 1e6 : mode;
    for (int i = 0; i < 200; ++i) {
      const double middle = std::sqrt(low * high);
      const bool inside = truth.log_pdf(middle) >= level;
      (y(0, j) < mode ? (inside ? low : high) : (inside ? high : low)) = middle;
    }
    const double other = std::sqrt(low * high);
    EXPECT_NEAR(hdp(j), std::abs(truth.cdf(other) - truth.cdf(y(0, j))), 1e-4) << "y = " << y(0, j);
  }
  EXPECT_EQ(model.log_pdf(Matrix::Zero(1, 1), Matrix::Constant(1, 1, -1.0))(0), -INFINITY);
  EXPECT_EQ(model.cdf(Matrix::Zero(1, 1), Matrix::Constant(1, 1, -1.0))(0), 0.0);
  const Matrix q = model.quantiles(Matrix::Zero(1, 1), {0.1, 0.5, 0.95});
  EXPECT_NEAR(q(0, 0), std::exp(truth.mu - 1.2815515655446004 * truth.sigma), 1e-10);
  EXPECT_NEAR(q(1, 0), std::exp(truth.mu), 1e-10);
  EXPECT_NEAR(q(2, 0), std::exp(truth.mu + 1.6448536269514722 * truth.sigma), 1e-10);
  const double variance_factor = std::exp(truth.sigma * truth.sigma);
  const double mean = std::exp(truth.mu + 0.5 * truth.sigma * truth.sigma);
  EXPECT_NEAR(model.mean(Matrix::Zero(1, 1))(0, 0), mean, 1e-10 * mean);
  EXPECT_NEAR(model.covariance(Matrix::Zero(1, 1))(0, 0), (variance_factor - 1) * mean * mean,
              1e-9 * mean * mean);
  // ∫ p² of the log-normal: e^{−2μ − ... } in closed form, exp(σ²/4 − μ) / (2σ√π).
  EXPECT_NEAR(
      model.squared_norm(Matrix::Zero(1, 1))(0),
      std::exp(0.25 * truth.sigma * truth.sigma - truth.mu) / (2.0 * truth.sigma * std::sqrt(M_PI)),
      1e-4);
  // The 90 % region: equal densities at its ends and probability 0.9 between them.
  const HighestDensityRegion region = model.highest_density_regions(Matrix::Zero(1, 1), 0.9)[0];
  ASSERT_EQ(region.intervals.size(), 1u);
  const Interval interval = region.intervals[0];
  EXPECT_NEAR(truth.cdf(interval.upper) - truth.cdf(interval.lower), 0.9, 1e-5);
  EXPECT_NEAR(truth.log_pdf(interval.upper), truth.log_pdf(interval.lower), 1e-3);
  // Draws: the mean of log y over 20,000 is μ within 4 standard errors.
  const Matrix draws = model.sample(Matrix::Zero(1, 1), 20000, 5);
  EXPECT_TRUE((draws.array() > 0.0).all());
  EXPECT_NEAR(draws.array().log().mean(), truth.mu, 4.0 * truth.sigma / std::sqrt(20000.0));
}

TEST(OutputTransform, TransformedAndPooledDensitiesIntegrateToOneInYsUnits) {
  const ConditionalFit fit = small_kernel_fit();
  const double mean = fit.model.y_scaling().mean()(0);
  const double scale = fit.model.y_scaling().scale()(0);
  const ConditionalMixture transformed =
      with_transform(fit.model, std::make_shared<const OutputTransform>(
                                    OutputTransform::yeo_johnson(0.4, mean, scale, 0.1, 1.3)));
  // A pool of the transformed mixture and the plain one: one group each.
  std::vector<TrendGroup> groups = {{0, nullptr, transformed.trend_groups()[0].transform},
                                    {fit.model.n_components(), nullptr, nullptr}};
  Matrix centers(1, 2 * fit.model.n_components());
  centers << fit.model.centers(), fit.model.centers();
  Matrix scales(1, centers.cols());
  scales << fit.model.scales(), fit.model.scales();
  Vector log_weights = Vector::Zero(centers.cols());
  log_weights.tail(fit.model.n_components()).setConstant(std::log(3.0));
  const ConditionalMixture pooled(fit.model.x_scaling(), fit.model.y_scaling(),
                                  std::make_shared<const ConstantGate>(2, log_weights),
                                  MixtureOutputs::gaussian(centers, scales).with_groups(groups));
  for (const ConditionalMixture* model : {&transformed, &pooled}) {
    for (const Vector& x : {Vector(Vector::Zero(2)), Vector(Vector::Constant(2, 1.5))}) {
      // The transformed tail reaches far: integrate over a wide range in fine steps.
      EXPECT_NEAR(integral_over_y(*model, x, mean - 100 * scale, mean + 100 * scale, 600001), 1.0,
                  1e-6);
      const Matrix at = x;
      const Matrix q = model->quantiles(at, {0.05, 0.5, 0.95});
      EXPECT_NEAR(model->cdf(at, q.row(0))(0), 0.05, 1e-12);
      EXPECT_NEAR(model->cdf(at, q.row(2))(0), 0.95, 1e-12);
    }
  }
  const PairSample data = sine_sample(6, 2, 3);
  expect_model_file_round_trip(transformed, fit.report, data.x, data.y);
  expect_model_file_round_trip(pooled, fit.report, data.x, data.y);
}

TEST(OutputTransform, ProfileLambdaRecoversTheYeoJohnsonExponentOfALinearModel) {
  // v = ψ_λ⁻¹(1 + 2 x + 0.5 ε) for λ = 0.5 and 1.5, 4,000 pairs: the profile likelihood's
  // maximiser has a standard error near 0.02 at this size; 0.1 is five of them.
  for (const double lambda : {0.5, 1.5}) {
    Rng rng(7, 0);
    const Index n = 4000;
    Matrix x(1, n);
    Vector v(n);
    const OutputTransform map = OutputTransform::yeo_johnson(lambda, 0.0, 1.0, 0.0, 1.0);
    for (Index i = 0; i < n; ++i) {
      x(0, i) = rng.normal();
      v(i) = map.inverse(1.0 + 2.0 * x(0, i) + 0.5 * rng.normal());
    }
    EXPECT_NEAR(yeo_johnson_profile_lambda(x, v), lambda, 0.1) << "λ = " << lambda;
  }
}

TEST(OutputTransform, YeoJohnsonAtTheIdentityFitsTheModelWithoutTransform) {
  // y = 1 + 2 x + 0.5 ε with every pair mirrored through (0, 1): ψ_λ(−v) = −ψ_{2−λ}(v) makes the
  // profile likelihood symmetric about λ = 1, its maximum. ψ₁ is the identity, so the fit is the
  // model without a transform — its densities those of KCDE fitted to y itself — answered by the
  // kernel sums, not componentwise.
  Rng rng(12, 0);
  const Index half = 400;
  Matrix x(1, 2 * half);
  Matrix y(1, 2 * half);
  for (Index i = 0; i < half; ++i) {
    x(0, i) = rng.normal();
    y(0, i) = 1.0 + 2.0 * x(0, i) + 0.5 * rng.normal();
    x(0, half + i) = -x(0, i);
    y(0, half + i) = 2.0 - y(0, i);
  }
  KcdeOptions options;
  options.bandwidth = {0.3, 0.2};
  KcdeOptions transformed = options;
  transformed.y_transform = OutputTransformChoice::yeo_johnson;
  const ConditionalFit plain = fit_kcde(x, y, options);
  const ConditionalFit identity = fit_kcde(x, y, transformed);
  ASSERT_EQ(identity.report.statistics.at("output_transform_lambda"), 1.0);
  EXPECT_FALSE(identity.model.has_output_transform());
  const PairSample queries = sine_sample(50, 1, 13);
  const Matrix query_y = 1.0 + 2.0 * queries.x.array() + queries.y.array();
  EXPECT_LT((identity.model.log_pdf(queries.x, query_y) - plain.model.log_pdf(queries.x, query_y))
                .cwiseAbs()
                .maxCoeff(),
            1e-9);
  // The held-out terms auto stacks are the same, so auto keeps one of the two candidates.
  ASSERT_TRUE(identity.report.held_out && plain.report.held_out);
  EXPECT_LT((identity.report.held_out->log_densities - plain.report.held_out->log_densities)
                .cwiseAbs()
                .maxCoeff(),
            1e-9);
}

TEST(OutputTransform, FitsOnALogOutputEqualTheEstimatorFittedToLogYByHand) {
  // y = exp(sin(2 x₀) + 0.3 ε): fitting with transform = log must give the model fitted to
  // log y, its densities divided by y and its leave-one-out terms shifted by −log y_i.
  const PairSample data = sine_sample(60, 2, 9);
  const Matrix y = data.y.array().exp();
  const Matrix log_y = data.y;
  KcdeOptions options;
  options.trend = KernelTrend::linear;
  options.search.n_restarts = 2;
  KcdeOptions logged = options;
  logged.y_transform = OutputTransformChoice::log;
  const ConditionalFit direct = fit_kcde(data.x, log_y, options);
  const ConditionalFit through = fit_kcde(data.x, y, logged);
  const Vector expected =
      direct.model.log_pdf(data.x, log_y).array() - log_y.row(0).transpose().array();
  EXPECT_LT((through.model.log_pdf(data.x, y) - expected).cwiseAbs().maxCoeff(), 1e-10);
  ASSERT_TRUE(direct.report.held_out && through.report.held_out);
  EXPECT_LT((through.report.held_out->log_densities -
             (direct.report.held_out->log_densities - log_y.row(0).transpose()))
                .cwiseAbs()
                .maxCoeff(),
            1e-12);
  EXPECT_NEAR(through.report.statistics.at("loo_nll"),
              direct.report.statistics.at("loo_nll") + log_y.mean(), 1e-12);
  EXPECT_EQ(through.model.y_scaling().mean()(0), Standardizer::fit(y, "y").mean()(0));
  // The linear-Gaussian model through the log: the log-normal regression.
  LinearOptions linear;
  linear.y_transform = OutputTransformChoice::log;
  const ConditionalFit log_normal = fit_linear(data.x, y, linear);
  const ConditionalFit by_hand = fit_linear(data.x, log_y);
  EXPECT_LT(
      (log_normal.model.log_pdf(data.x, y) -
       (by_hand.model.log_pdf(data.x, log_y).array() - log_y.row(0).transpose().array()).matrix())
          .cwiseAbs()
          .maxCoeff(),
      1e-10);
  // Recorded to 0.1: through the log, a kernel of log-width w spans w y_i in y at y_i, so the
  // floor keeps w y_min ≥ 0.05 (half the step) and the report names the step of y itself.
  const Matrix recorded = (y.array() * 10.0).round() / 10.0;
  KcdeOptions search_only;
  search_only.y_transform = OutputTransformChoice::log;
  search_only.search.n_restarts = 2;
  const ConditionalFit gridded = fit_kcde(data.x, recorded, search_only);
  EXPECT_NEAR(gridded.report.hyperparameters.at("recording_step_y0"), 0.1, 1e-9);
  EXPECT_GE(gridded.report.hyperparameters.at("bandwidth_y0") * recorded.minCoeff(),
            0.05 * (1.0 - 1e-9));
  Matrix negative = y;
  negative(0, 3) = -1.0;
  EXPECT_NE(message_of<InvalidArgument>([&] {
              fit_kcde(data.x, negative, logged);
            }).find("transform = log needs positive outputs"),
            std::string::npos);
}

}  // namespace
}  // namespace cdens

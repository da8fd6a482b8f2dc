// Tests of core/gaussian_mixture.hpp, the fitted shape of every unconditional estimator:
//
//   p(z) = Σ_l β_l N(z; c_l, diag γ_l²)   (standardised z),
//
// each query checked against quadrature, a direct sum written here in the user's units, or the
// moments of a large sample.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Three components in 1-D with a non-trivial standardisation (mean 5, scale 2).
GaussianMixture one_dimensional() {
  Vector weights(3);
  weights << 0.5, 0.3, 0.2;
  Matrix centers(1, 3);
  centers << -1.0, 0.5, 2.0;
  Matrix widths(1, 3);
  widths << 0.4, 0.8, 0.25;
  return GaussianMixture(Standardizer(Vector::Constant(1, 5.0), Vector::Constant(1, 2.0)), weights,
                         centers, widths);
}

/// Two components in 2-D with different widths per dimension and per-dimension scales.
GaussianMixture two_dimensional() {
  Vector weights(2);
  weights << 0.35, 0.65;
  Matrix centers(2, 2);
  centers << -1.0, 1.2,  //
      0.5, -0.3;
  Matrix widths(2, 2);
  widths << 0.5, 0.9,  //
      0.7, 0.3;
  Vector mean(2), scale(2);
  mean << 1.0, -2.0;
  scale << 0.5, 3.0;
  return GaussianMixture(Standardizer(mean, scale), weights, centers, widths);
}

/// p(x) in the user's units written from the formula: each dimension's Gaussian in x has mean
/// mean_d + scale_d c_ld and standard deviation scale_d γ_ld.
double direct_pdf(const GaussianMixture& model, const Vector& x) {
  const Vector& mean = model.x_scaling().mean();
  const Vector& scale = model.x_scaling().scale();
  double total = 0.0;
  for (Index l = 0; l < model.n_components(); ++l) {
    double product = model.weights()(l);
    for (Index d = 0; d < model.dimension(); ++d) {
      const double mu = mean(d) + scale(d) * model.centers()(d, l);
      const double sd = scale(d) * model.scales()(d, l);
      product *= std::exp(-0.5 * std::pow((x(d) - mu) / sd, 2)) / (std::sqrt(2 * kPi) * sd);
    }
    total += product;
  }
  return total;
}

TEST(GaussianMixture, LogPdfMatchesTheDirectSum) {
  for (const auto& model : {one_dimensional(), two_dimensional()}) {
    Rng rng(3);
    const Matrix x = (test::normal_matrix(model.dimension(), 40, rng) * 2.0).array() + 1.0;
    const Vector log_p = model.log_pdf(x);
    for (Index j = 0; j < x.cols(); ++j) {
      EXPECT_NEAR(log_p(j), std::log(direct_pdf(model, x.col(j))), 1e-12);
    }
  }
}

TEST(GaussianMixture, IntegratesToOneInOneDimension) {
  const GaussianMixture model = one_dimensional();
  // Widths in user units ≥ 0.5; the trapezoid rule with step 0.01 over ±12 widths is exact to
  // far below 1e-9 for a Gaussian.
  const double low = 5.0 + 2.0 * (-1.0 - 12 * 0.8), high = 5.0 + 2.0 * (2.0 + 12 * 0.8);
  const int points = 6001;
  Matrix grid(1, points);
  for (int g = 0; g < points; ++g) grid(0, g) = low + (high - low) * g / (points - 1.0);
  const Vector density = model.pdf(grid);
  const double step = (high - low) / (points - 1.0);
  EXPECT_NEAR(step * (density.sum() - 0.5 * (density(0) + density(points - 1))), 1.0, 1e-9);
}

TEST(GaussianMixture, IntegratesToOneInTwoDimensions) {
  const GaussianMixture model = two_dimensional();
  const Vector& mean = model.x_scaling().mean();
  const Vector& scale = model.x_scaling().scale();
  const int points = 401;
  Vector low(2), high(2);
  for (Index d = 0; d < 2; ++d) {
    low(d) = mean(d) + scale(d) * (model.centers().row(d).minCoeff() - 10.0);
    high(d) = mean(d) + scale(d) * (model.centers().row(d).maxCoeff() + 10.0);
  }
  Matrix grid(2, points * points);
  for (int a = 0; a < points; ++a) {
    for (int b = 0; b < points; ++b) {
      grid(0, a * points + b) = low(0) + (high(0) - low(0)) * a / (points - 1.0);
      grid(1, a * points + b) = low(1) + (high(1) - low(1)) * b / (points - 1.0);
    }
  }
  const Vector density = model.pdf(grid);
  // Trapezoid weights in 2-D: the product of the 1-D ones.
  double total = 0.0;
  for (int a = 0; a < points; ++a) {
    for (int b = 0; b < points; ++b) {
      const double wa = (a == 0 || a == points - 1) ? 0.5 : 1.0;
      const double wb = (b == 0 || b == points - 1) ? 0.5 : 1.0;
      total += wa * wb * density(a * points + b);
    }
  }
  total *= (high(0) - low(0)) / (points - 1.0) * (high(1) - low(1)) / (points - 1.0);
  EXPECT_NEAR(total, 1.0, 1e-6);
}

TEST(GaussianMixture, SampleMomentsMatchTheClosedForm) {
  const GaussianMixture model = two_dimensional();
  // Closed form written here: E[x_d] = mean_d + scale_d Σ β_l c_ld, and
  // Var = scale² (Σ β (γ² + c²) − (Σ β c)²), Cov_01 = scale_0 scale_1 (Σ β c_0 c_1 − μ_0 μ_1).
  const Vector& beta = model.weights();
  const Vector mu_z = model.centers() * beta;
  Vector expected_mean(2);
  Matrix expected_cov(2, 2);
  for (Index d = 0; d < 2; ++d) {
    expected_mean(d) = model.x_scaling().mean()(d) + model.x_scaling().scale()(d) * mu_z(d);
    for (Index e = 0; e < 2; ++e) {
      double second = 0.0;
      for (Index l = 0; l < 2; ++l) {
        second += beta(l) * (model.centers()(d, l) * model.centers()(e, l) +
                             (d == e ? std::pow(model.scales()(d, l), 2) : 0.0));
      }
      expected_cov(d, e) = model.x_scaling().scale()(d) * model.x_scaling().scale()(e) *
                           (second - mu_z(d) * mu_z(e));
    }
  }
  EXPECT_LT((model.mean() - expected_mean).norm(), 1e-12);
  EXPECT_LT((model.covariance() - expected_cov).norm(), 1e-12);

  const Index n = 200000;
  const Matrix draws = model.sample(n, 17);
  const Vector sample_mean = draws.rowwise().mean();
  const Matrix centered = draws.colwise() - sample_mean;
  const Matrix sample_cov = centered * centered.transpose() / static_cast<double>(n - 1);
  for (Index d = 0; d < 2; ++d) {
    // Five standard errors of the mean.
    EXPECT_NEAR(sample_mean(d), expected_mean(d),
                5 * std::sqrt(expected_cov(d, d) / static_cast<double>(n)));
    // The variance's standard error is below sqrt(2 / n) Var · (kurtosis factor ≤ 3).
    EXPECT_NEAR(sample_cov(d, d), expected_cov(d, d),
                5 * 3 * std::sqrt(2.0 / static_cast<double>(n)) * expected_cov(d, d));
  }
  EXPECT_NEAR(sample_cov(0, 1), expected_cov(0, 1),
              15 * std::sqrt(expected_cov(0, 0) * expected_cov(1, 1) / static_cast<double>(n)));
}

TEST(GaussianMixture, SamplingIsReproducibleFromTheSeed) {
  const GaussianMixture model = one_dimensional();
  EXPECT_TRUE(model.sample(100, 5) == model.sample(100, 5));
  EXPECT_FALSE(model.sample(100, 5) == model.sample(100, 6));
}

TEST(GaussianMixture, SquaredNormMatchesQuadrature) {
  const GaussianMixture model = one_dimensional();
  const double low = -20.0, high = 30.0;
  const int points = 20001;
  Matrix grid(1, points);
  for (int g = 0; g < points; ++g) grid(0, g) = low + (high - low) * g / (points - 1.0);
  const Vector squared = model.pdf(grid).array().square();
  const double step = (high - low) / (points - 1.0);
  EXPECT_NEAR(model.squared_norm(),
              step * (squared.sum() - 0.5 * (squared(0) + squared(points - 1))), 1e-10);
}

TEST(GaussianMixture, JsonRoundTripIsBitForBit) {
  for (const auto& model : {one_dimensional(), two_dimensional()}) {
    // Weights that are not short decimals exercise the round-trip form of doubles.
    Vector weights = Vector::Constant(model.n_components(), 1.0 / 3.0);
    weights(0) = 1.0 - (model.n_components() - 1) / 3.0;
    const GaussianMixture odd(model.x_scaling(), weights, model.centers() / 3.0,
                              model.scales() * std::sqrt(2.0));
    const std::string text = odd.to_json().dump();
    const GaussianMixture loaded = GaussianMixture::from_json(nlohmann::json::parse(text));
    EXPECT_EQ(loaded.to_json().dump(), text);
    Rng rng(9);
    const Matrix x = test::normal_matrix(odd.dimension(), 50, rng) * 3.0;
    EXPECT_TRUE(loaded.log_pdf(x) == odd.log_pdf(x));
  }
}

TEST(GaussianMixture, FromJsonRejectsMalformedDocuments) {
  nlohmann::json document = one_dimensional().to_json();
  document.erase("widths");
  EXPECT_THROW(GaussianMixture::from_json(document), ModelFormatError);
  document = one_dimensional().to_json();
  document["weights"] = {0.5, 0.6, 0.2};
  EXPECT_THROW(GaussianMixture::from_json(document), ModelFormatError);
}

TEST(GaussianMixture, LogPdfFarFromEveryCentreIsFinite) {
  const GaussianMixture model = one_dimensional();
  Matrix far(1, 3);
  far << 1e4, -1e5, 5e6;
  const Vector log_p = model.log_pdf(far);
  for (Index j = 0; j < far.cols(); ++j) {
    ASSERT_TRUE(std::isfinite(log_p(j))) << far(0, j);
    // Dominated by the component of the largest log-term; check against that term alone.
    double best = -INFINITY;
    for (Index l = 0; l < model.n_components(); ++l) {
      const double z = (far(0, j) - 5.0) / 2.0;
      const double gamma = model.scales()(0, l);
      best = std::max(best, std::log(model.weights()(l)) - std::log(2.0 * gamma) -
                                0.5 * std::log(2 * kPi) -
                                0.5 * std::pow((z - model.centers()(0, l)) / gamma, 2));
    }
    EXPECT_NEAR(log_p(j), best, 1e-9 * std::abs(best) + 1e-6);
  }
}

TEST(GaussianMixture, ZeroWeightComponentsAreLeftOut) {
  Vector weights(2);
  weights << 1.0, 0.0;
  Matrix centers(1, 2);
  centers << 0.0, 3.0;
  const GaussianMixture model(Standardizer::identity(1), weights, centers, Matrix::Ones(1, 2));
  Matrix x(1, 1);
  x << 3.0;
  EXPECT_NEAR(model.log_pdf(x)(0), -0.5 * std::log(2 * kPi) - 4.5, 1e-13);
}

TEST(GaussianMixture, RejectsInconsistentParameters) {
  const Matrix centers = Matrix::Zero(1, 2);
  const Matrix widths = Matrix::Ones(1, 2);
  const Standardizer scaling = Standardizer::identity(1);
  EXPECT_THROW(GaussianMixture(scaling, Vector::Constant(2, 0.6), centers, widths),
               InvalidArgument);
  Vector negative(2);
  negative << 1.5, -0.5;
  EXPECT_THROW(GaussianMixture(scaling, negative, centers, widths), InvalidArgument);
  EXPECT_THROW(GaussianMixture(scaling, Vector::Constant(2, 0.5), centers, Matrix::Zero(1, 2)),
               InvalidArgument);
  EXPECT_THROW(GaussianMixture(scaling, Vector::Constant(3, 1.0 / 3), centers, widths),
               InvalidArgument);
  EXPECT_THROW(
      GaussianMixture(Standardizer::identity(2), Vector::Constant(2, 0.5), centers, widths),
      InvalidArgument);
  const GaussianMixture model(scaling, Vector::Constant(2, 0.5), centers, widths);
  Matrix with_nan(1, 2);
  with_nan << 0.0, std::nan("");
  EXPECT_THROW(model.log_pdf(with_nan), DataError);
  EXPECT_THROW(model.log_pdf(Matrix::Zero(2, 3)), InvalidArgument);
  EXPECT_THROW(model.sample(0, 1), InvalidArgument);
}

}  // namespace
}  // namespace cdens

namespace cdens {
namespace {

/// P(X ≤ x) of a 1-D mixture written from the formula, in the user's units.
double direct_cdf(const GaussianMixture& model, double x) {
  const double mean = model.x_scaling().mean()(0), scale = model.x_scaling().scale()(0);
  double total = 0.0;
  for (Index l = 0; l < model.n_components(); ++l) {
    const double mu = mean + scale * model.centers()(0, l);
    const double sd = scale * model.scales()(0, l);
    total += model.weights()(l) * 0.5 * std::erfc(-(x - mu) / (sd * std::sqrt(2.0)));
  }
  return total;
}

TEST(GaussianMixture, CdfAndQuantilesInvertEachOther) {
  const GaussianMixture model = one_dimensional();
  Matrix x(1, 5);
  x << -2.0, 2.5, 5.0, 6.3, 11.0;
  const Vector cdf = model.cdf(x);
  for (Index j = 0; j < x.cols(); ++j) EXPECT_NEAR(cdf(j), direct_cdf(model, x(0, j)), 1e-13);
  const std::vector<double> levels = {0.01, 0.25, 0.5, 0.9, 0.999};
  const Matrix quantiles = model.quantiles(levels);
  ASSERT_EQ(quantiles.rows(), 1);
  for (std::size_t r = 0; r < levels.size(); ++r) {
    EXPECT_NEAR(direct_cdf(model, quantiles(0, static_cast<Index>(r))), levels[r], 1e-10);
  }
  EXPECT_THROW(model.quantiles({0.5, 1.0}), InvalidArgument);
  EXPECT_THROW(two_dimensional().cdf(Matrix::Zero(2, 1)), InvalidArgument);
}

TEST(GaussianMixture, QuantilesOfEachDimensionAreThoseOfItsMarginal) {
  const GaussianMixture model = two_dimensional();
  const Matrix quantiles = model.quantiles({0.2, 0.7});
  ASSERT_EQ(quantiles.rows(), 2);
  for (Index d = 0; d < 2; ++d) {
    // Dimension d alone: the 1-D mixture of its centres and widths under its own scaling.
    const GaussianMixture marginal(Standardizer(Vector::Constant(1, model.x_scaling().mean()(d)),
                                                Vector::Constant(1, model.x_scaling().scale()(d))),
                                   model.weights(), model.centers().row(d), model.scales().row(d));
    EXPECT_NEAR(direct_cdf(marginal, quantiles(d, 0)), 0.2, 1e-10);
    EXPECT_NEAR(direct_cdf(marginal, quantiles(d, 1)), 0.7, 1e-10);
  }
}

TEST(GaussianMixture, HighestDensityRegionHoldsItsCoverageAboveItsThreshold) {
  const GaussianMixture model = one_dimensional();
  const HighestDensityRegion region = model.highest_density_region(0.8);
  ASSERT_FALSE(region.intervals.empty());
  double mass = 0.0;
  for (const Interval& interval : region.intervals) {
    mass += direct_cdf(model, interval.upper) - direct_cdf(model, interval.lower);
    // The density equals the threshold at both ends and exceeds it inside.
    Matrix ends(1, 3);
    ends << interval.lower, 0.5 * (interval.lower + interval.upper), interval.upper;
    const Vector density = model.pdf(ends);
    EXPECT_NEAR(density(0), region.density_threshold, 1e-6 * region.density_threshold);
    EXPECT_NEAR(density(2), region.density_threshold, 1e-6 * region.density_threshold);
  }
  EXPECT_NEAR(mass, 0.8, 1e-6);
  EXPECT_THROW(two_dimensional().highest_density_region(0.8), InvalidArgument);
}

TEST(DensityModelFile, RoundTripsBitForBitAndRefusesTheOtherShape) {
  FitReport report;
  report.method = "gmm";
  report.hyperparameters["n_components"] = 2;
  const DensityModel saved{two_dimensional(), {"a", "b"}, report};
  const std::string path = test::temporary_path("density.json");
  save_density_model(saved, path);
  const DensityModel loaded = load_density_model(path);
  Rng rng(4);
  const Matrix x = test::normal_matrix(2, 30, rng);
  EXPECT_EQ(loaded.mixture.log_pdf(x), saved.mixture.log_pdf(x));
  EXPECT_EQ(loaded.names, saved.names);
  EXPECT_EQ(loaded.report.to_json(), report.to_json());
  EXPECT_EQ(model_file_shape(density_model_to_json(saved)), "gaussian_mixture");
  try {
    load_conditional_model(path);
    ADD_FAILURE() << "a density model file was read as a conditional model";
  } catch (const ModelFormatError& error) {
    EXPECT_NE(std::string(error.what()).find("unconditional density model"), std::string::npos);
  }
  std::remove(path.c_str());

  nlohmann::json document = density_model_to_json(saved);
  document["variables"]["x"] = {"a"};
  EXPECT_THROW(density_model_from_json(document), ModelFormatError);
  document = density_model_to_json(saved);
  document["shape"] = "tree";
  EXPECT_THROW(density_model_from_json(document), ModelFormatError);
  document = density_model_to_json(saved);
  document["model"]["weights"] = "heavy";
  EXPECT_THROW(density_model_from_json(document), ModelFormatError);
}

}  // namespace
}  // namespace cdens

// Tests of include/cdens/evaluation/: every score against a brute-force computation (CRPS by
// quadrature of the CDF, pinball losses from quantiles found by bisection, the CDE loss by
// quadrature of p̂², the energy score against the closed form of a Gaussian), the HPD values
// against quadrature, calibration of a correct and an over-dispersed model on simulated data
// (fixed seeds, thresholds from the sample size), and the paired comparison by hand.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/conditional/linear.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/evaluation/scores.hpp"
#include "conditional/constant_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// An LSCDE fit on the sine data (x-dependent weights, a multimodal p̂ in places), given a trend
/// A = 0.7 so that the components move with x as well: every part of the shape is exercised.
struct TestModel {
  ConditionalMixture model;
  test::PairSample data;
};

TestModel sine_model_with_trend() {
  test::PairSample data = test::sine_sample(80, 1, 5);
  LscdeOptions options;
  options.sigma = {0.3};
  options.regularization = {0.1};
  const ConditionalMixture fitted = fit_lscde(data.x, data.y, options).model;
  ConditionalMixture model(fitted.x_scaling(), fitted.y_scaling(), fitted.shared_gate(),
                           fitted.outputs().with_trend(std::make_shared<const LinearTrend>(
                               Vector::Zero(1), Matrix::Constant(1, 1, 0.7))));
  return {std::move(model), std::move(data)};
}

/// Test pairs: the first `count` inputs of the training data with outputs spread over the range
/// of y, tails included.
Matrix spread_outputs(const test::PairSample& data, Index count) {
  const double low = data.y.minCoeff();
  const double high = data.y.maxCoeff();
  const double margin = 0.3 * (high - low);
  return Eigen::RowVectorXd::LinSpaced(count, low - margin, high + margin);
}

/// F(t | x) on a grid of points for one input x (a column).
Vector cdf_on_grid(const ConditionalMixture& model, const Vector& x, const Vector& grid) {
  const Matrix inputs = x.replicate(1, grid.size());
  return model.cdf(inputs, grid.transpose());
}

/// ∫ f over the grid by the trapezoid rule.
double trapezoid(const Vector& grid, const Vector& f) {
  double total = 0.0;
  for (Index g = 1; g < grid.size(); ++g) {
    total += 0.5 * (grid(g) - grid(g - 1)) * (f(g) + f(g - 1));
  }
  return total;
}

TEST(EvaluationScores, CrpsEqualsTheIntegralOfTheSquaredCdfDifference) {
  const TestModel test = sine_model_with_trend();
  const Index count = 5;
  const Matrix x = test.data.x.leftCols(count);
  const Matrix y = spread_outputs(test.data, count);
  const Vector closed_form = crps(test.model, x, y);
  const Vector mean = test.model.mean(x).row(0).transpose();
  for (Index j = 0; j < count; ++j) {
    // ∫ F² below y and ∫ (1 − F)² above (smooth on each side: the kink at y is an end point),
    // each by Simpson's rule on 4,001 points over 15 standard deviations of the data: exact to
    // ~1e-9, and the tails beyond add ~1e-30.
    const double spread = 15.0 * test.model.y_scaling().scale()(0);
    const Vector below = Vector::LinSpaced(4001, mean(j) - spread, y(0, j));
    const Vector above = Vector::LinSpaced(4001, y(0, j), mean(j) + spread);
    const Vector f_below = cdf_on_grid(test.model, x.col(j), below).array().square();
    const Vector f_above = (1.0 - cdf_on_grid(test.model, x.col(j), above).array()).square();
    const double integral = test::simpson(below, f_below) + test::simpson(above, f_above);
    EXPECT_NEAR(closed_form(j), integral, 1e-6 * (1.0 + integral)) << "pair " << j;
  }
}

TEST(EvaluationScores, TheClosedFormCrpsRefusesADiscreteOutput) {
  // A KCDE with an ordered y is a probability mass function, not a Gaussian mixture.
  Rng rng(8);
  Matrix x = test::normal_matrix(1, 60, rng);
  Matrix y(1, 60);
  for (Index i = 0; i < 60; ++i) y(0, i) = std::round(std::clamp(1.0 + x(0, i), 0.0, 3.0));
  KcdeOptions options;
  options.ordered = {1};
  options.search.n_restarts = 0;
  const ConditionalFit fit = fit_kcde(x, y, options);
  try {
    crps(fit.model, x, y);
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("discrete"), std::string::npos) << error.what();
  }
}

TEST(EvaluationScores, PinballLossesComeFromTheQuantiles) {
  const TestModel test = sine_model_with_trend();
  const Index count = 7;
  const Matrix x = test.data.x.leftCols(count);
  const Matrix y = spread_outputs(test.data, count);
  const std::vector<double> levels{0.05, 0.5, 0.8};
  const Matrix losses = pinball_losses(test.model, x, y, levels);
  for (Index j = 0; j < count; ++j) {
    for (std::size_t r = 0; r < levels.size(); ++r) {
      // The quantile by bisection of the CDF, independently of ConditionalMixture::quantiles.
      double low = y.minCoeff() - 20.0;
      double high = y.maxCoeff() + 20.0;
      for (int iteration = 0; iteration < 200; ++iteration) {
        const double middle = 0.5 * (low + high);
        const Vector at = cdf_on_grid(test.model, x.col(j), Vector::Constant(1, middle));
        (at(0) < levels[r] ? low : high) = middle;
      }
      const double residual = y(0, j) - 0.5 * (low + high);
      const double expected = residual >= 0 ? levels[r] * residual : (levels[r] - 1) * residual;
      EXPECT_NEAR(losses(static_cast<Index>(r), j), expected, 1e-9) << "pair " << j;
    }
  }
}

TEST(EvaluationScores, PinballLossesAverageToHalfTheCrps) {
  // CRPS = 2 ∫₀¹ ρ_τ(y − q_τ) dτ (Gneiting & Raftery 2007): the midpoint rule on 2,000 levels.
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(3);
  const Matrix y = spread_outputs(test.data, 3);
  std::vector<double> levels;
  for (int r = 0; r < 2000; ++r) levels.push_back((r + 0.5) / 2000.0);
  const Vector from_levels = 2.0 * pinball_losses(test.model, x, y, levels).colwise().mean();
  const Vector closed_form = crps(test.model, x, y);
  for (Index j = 0; j < 3; ++j) EXPECT_NEAR(from_levels(j), closed_form(j), 2e-3 * closed_form(j));
}

TEST(EvaluationScores, CdeLossEqualsQuadratureOfTheSquaredDensity) {
  const TestModel test = sine_model_with_trend();
  const Index count = 3;
  const Matrix x = test.data.x.leftCols(count);
  const Matrix y = test.data.y.leftCols(count);
  const Vector losses = cde_losses(test.model, x, y);
  // Simpson's rule on 8,001 points over the data's range widened by twice its width on each
  // side (the trend moves p̂ by at most 1.5 standard deviations): exact to ~1e-10.
  const double range = test.data.y.maxCoeff() - test.data.y.minCoeff();
  const Vector grid = Vector::LinSpaced(8001, test.data.y.minCoeff() - 2.0 * range,
                                        test.data.y.maxCoeff() + 2.0 * range);
  const Matrix density = test.model.pdf_grid(x, grid.transpose());
  const Vector observed = test.model.log_pdf(x, y).array().exp();
  for (Index j = 0; j < count; ++j) {
    const double integral = test::simpson(grid, density.col(j).array().square().matrix());
    EXPECT_NEAR(losses(j), integral - 2.0 * observed(j), 1e-6) << "pair " << j;
  }
}

/// One isotropic Gaussian N(mean, σ² I) in two dimensions, whatever x (one input).
ConditionalMixture isotropic_gaussian(const Vector& mean, double sigma) {
  return ConditionalMixture(
      Standardizer::identity(1), Standardizer(mean, Vector::Ones(2)),
      std::make_shared<ConstantGate>(1, Vector::Zero(1)),
      MixtureOutputs::gaussian(Matrix::Zero(2, 1), Matrix::Constant(2, 1, sigma)));
}

TEST(EvaluationScores, CdeLossInTwoDimensionsEqualsQuadrature) {
  const ConditionalMixture model = isotropic_gaussian(Vector::Zero(2), 0.5);
  const Matrix y = (Matrix(2, 2) << 0.1, -0.4, 0.3, 0.8).finished();
  const Vector losses = cde_losses(model, Matrix::Zero(1, 2), y);
  // ∫ N(y; 0, σ² I)² dy on a 401 × 401 grid over ±4: the trapezoid rule's error is below 1e-8.
  const Index points = 401;
  const Vector axis = Vector::LinSpaced(points, -4.0, 4.0);
  Matrix grid(2, points * points);
  for (Index a = 0; a < points; ++a) {
    for (Index b = 0; b < points; ++b) grid.col(a * points + b) << axis(a), axis(b);
  }
  const Vector density = model.pdf_grid(Matrix::Zero(1, 1), grid).col(0);
  const double cell = (axis(1) - axis(0)) * (axis(1) - axis(0));
  const double integral = density.array().square().sum() * cell;
  for (Index j = 0; j < 2; ++j) {
    const double observed = std::exp(model.log_pdf(Matrix::Zero(1, 1), y.col(j))(0));
    EXPECT_NEAR(losses(j), integral - 2.0 * observed, 1e-6);
  }
}

/// E‖X − y‖ for X ~ N(μ, σ² I) in two dimensions: the mean of the Rice distribution with
/// ν = ‖y − μ‖, σ √(π/2) L_{1/2}(−ν²/2σ²), L_{1/2}(u) = e^{u/2} [(1 − u) I₀(−u/2) − u I₁(−u/2)].
double rice_mean(double nu, double sigma) {
  const double u = -nu * nu / (2.0 * sigma * sigma);
  const double laguerre = std::exp(u / 2.0) * ((1.0 - u) * std::cyl_bessel_i(0.0, -u / 2.0) -
                                               u * std::cyl_bessel_i(1.0, -u / 2.0));
  return sigma * std::sqrt(kPi / 2.0) * laguerre;
}

TEST(EvaluationScores, EnergyScoreMatchesTheClosedFormOfAGaussian) {
  // ES = E‖X − y‖ − ½ E‖X − X′‖ with X − X′ ~ N(0, 2σ² I): ½ E‖X − X′‖ = ½ σ √π.
  const double sigma = 0.8;
  const Vector mean = (Vector(2) << 1.0, -2.0).finished();
  const ConditionalMixture model = isotropic_gaussian(mean, sigma);
  const Index count = 40;
  Rng rng(3);
  const Matrix y = (test::normal_matrix(2, count, rng) * 1.5).colwise() + mean;
  const EnergyScores scores = energy_scores(model, Matrix::Zero(1, count), y, 4000, 11);
  double squared_errors = 0.0;
  double total_difference = 0.0;
  for (Index j = 0; j < count; ++j) {
    const double exact = rice_mean((y.col(j) - mean).norm(), sigma) - 0.5 * sigma * std::sqrt(kPi);
    // Each estimate is a mean of 2,000 independent terms: within 4.5 standard errors (a miss
    // has probability 7e-6 per pair).
    EXPECT_NEAR(scores.values(j), exact, 4.5 * scores.standard_errors(j)) << "pair " << j;
    squared_errors += scores.standard_errors(j) * scores.standard_errors(j);
    total_difference += scores.values(j) - exact;
  }
  EXPECT_LT(std::abs(total_difference), 4.5 * std::sqrt(squared_errors));
  // The stated error is the spread of the terms over √2000, a few percent of σ here.
  EXPECT_LT(scores.standard_errors.maxCoeff(), 0.05 * sigma);
  EXPECT_EQ(scores.draws, 4000);
}

TEST(EvaluationScores, EnergyScoreOfOneDimensionIsTheCrps) {
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(6);
  const Matrix y = spread_outputs(test.data, 6);
  const EnergyScores scores = energy_scores(test.model, x, y, 6000, 2);
  const Vector closed_form = crps(test.model, x, y);
  for (Index j = 0; j < 6; ++j) {
    EXPECT_NEAR(scores.values(j), closed_form(j), 4.5 * scores.standard_errors(j));
  }
}

TEST(EvaluationCalibration, HpdValuesOfOneDimensionEqualQuadrature) {
  const TestModel test = sine_model_with_trend();
  const Index count = 4;
  const Matrix x = test.data.x.leftCols(count);
  const Matrix y = spread_outputs(test.data, count);
  const HighestDensityValues hpd = highest_density_values(test.model, x, y, 0, 0);
  EXPECT_EQ(hpd.draws, 0);
  const double range = test.data.y.maxCoeff() - test.data.y.minCoeff();
  const Vector grid = Vector::LinSpaced(50001, test.data.y.minCoeff() - 2.0 * range,
                                        test.data.y.maxCoeff() + 2.0 * range);
  const double cell = grid(1) - grid(0);
  const Matrix density = test.model.pdf_grid(x, grid.transpose());
  const Vector observed = test.model.log_pdf(x, y).array().exp();
  for (Index j = 0; j < count; ++j) {
    // P(p̂(Y) ≥ p̂(y_j)): the mass of the grid cells above the threshold. Each end of the
    // superlevel set is off by at most one cell of mass ≤ cell · max p̂, and a bimodal p̂ has at
    // most four ends here.
    const Vector above = (density.col(j).array() >= observed(j)).cast<double>();
    const double mass = trapezoid(grid, density.col(j).cwiseProduct(above));
    EXPECT_NEAR(hpd.values(j), mass, 4.0 * cell * density.col(j).maxCoeff() + 1e-9) << "pair " << j;
  }
}

TEST(EvaluationCalibration, SampledHpdValuesOfAGaussianFollowTheRayleighLaw) {
  // In two dimensions p(X) ≥ p(y) ⇔ ‖X − μ‖ ≤ ‖y − μ‖, so h = 1 − exp(−‖y − μ‖² / 2σ²). The
  // randomised rank over 4,000 draws has a standard deviation below 0.5/√4000 = 0.008.
  const double sigma = 1.3;
  const ConditionalMixture model = isotropic_gaussian(Vector::Zero(2), sigma);
  Rng rng(8);
  const Matrix y = test::normal_matrix(2, 30, rng) * 1.2;
  const HighestDensityValues hpd = highest_density_values(model, Matrix::Zero(1, 30), y, 4000, 4);
  EXPECT_EQ(hpd.draws, 4000);
  for (Index j = 0; j < 30; ++j) {
    const double exact = 1.0 - std::exp(-y.col(j).squaredNorm() / (2.0 * sigma * sigma));
    EXPECT_NEAR(hpd.values(j), exact, 0.04) << "pair " << j;
  }
}

/// y = 1 + 2 x + 0.5 ε with x, ε ~ N(0, 1): n pairs from the seed.
test::PairSample linear_data(Index n, std::uint64_t seed) {
  Rng rng(seed);
  const Matrix x = test::normal_matrix(1, n, rng);
  const Matrix noise = test::normal_matrix(1, n, rng);
  return {x, (2.0 * x + 0.5 * noise).array() + 1.0};
}

TEST(EvaluationCalibration, CorrectModelPassesAndOverDispersedModelFailsTheUniformityTest) {
  const test::PairSample train = linear_data(500, 1);
  const test::PairSample held_out = linear_data(1000, 2);
  const ConditionalMixture correct = fit_linear(train.x, train.y).model;
  // The same line with twice the spread: its PIT values crowd around ½. With F the true
  // distribution of u = Φ(z/2), sup |Φ(2 Φ⁻¹(u)) − u| ≈ 0.16, while the 1 % critical value of
  // D for n = 1,000 is 1.63/√1000 ≈ 0.05: the p-value must be tiny.
  const ConditionalMixture wide(correct.x_scaling(), correct.y_scaling(), correct.shared_gate(),
                                MixtureOutputs::gaussian(correct.centers(), 2.0 * correct.scales())
                                    .with_trend(correct.trend()));
  const ModelEvaluation good = evaluate_model(correct, held_out.x, held_out.y);
  const ModelEvaluation bad = evaluate_model(wide, held_out.x, held_out.y);
  ASSERT_EQ(good.calibration.size(), 2u);
  for (std::size_t c = 0; c < 2; ++c) {
    // A correct model fails at 1 % with probability 0.01 over seeds; this seed is fixed.
    EXPECT_GT(good.calibration[c].test.p_value, 0.01) << good.calibration[c].name;
    EXPECT_LT(bad.calibration[c].test.p_value, 1e-6) << bad.calibration[c].name;
    EXPECT_GT(bad.calibration[c].test.statistic, 0.1) << bad.calibration[c].name;
  }
  // Coverage of the correct model stays inside the binomial band at (nearly) every level; the
  // over-dispersed one covers too much at the middle levels.
  const CoverageCurve& curve = good.coverage;
  const Index inside = ((curve.central.array() >= curve.band_lower.array()) &&
                        (curve.central.array() <= curve.band_upper.array()))
                           .count();
  EXPECT_GE(inside, curve.levels.size() - 1);
  EXPECT_GT(bad.coverage.central(9), bad.coverage.band_upper(9));
  EXPECT_NEAR(good.score("central_coverage_0.9").mean, 0.9, 0.03);
}

TEST(EvaluationCalibration, TwoDimensionalOutputsGetHpdValuesAndTheEnergyScore) {
  Rng rng(21);
  const Matrix x = test::normal_matrix(1, 400, rng);
  Matrix y = test::normal_matrix(2, 400, rng) * 0.4;
  y.row(0) += x.row(0);
  y.row(1) -= x.row(0);
  const ConditionalMixture model = fit_linear(x.leftCols(200), y.leftCols(200)).model;
  EvaluationOptions options;
  options.draws = 400;
  const ModelEvaluation evaluation =
      evaluate_model(model, x.rightCols(200), y.rightCols(200), options);
  ASSERT_EQ(evaluation.calibration.size(), 1u);
  EXPECT_EQ(evaluation.calibration[0].name, "hpd");
  EXPECT_EQ(evaluation.hpd_draws, 400);
  EXPECT_GT(evaluation.calibration[0].test.p_value, 0.01);
  EXPECT_EQ(evaluation.energy_draws, 400);
  EXPECT_GT(evaluation.energy_monte_carlo_error, 0.0);
  EXPECT_LT(evaluation.energy_monte_carlo_error, 0.1 * evaluation.score("energy_score").mean);
  EXPECT_THROW(evaluation.score("crps"), InvalidArgument);
  EXPECT_NO_THROW(evaluation.score("hpd_coverage_0.9"));
}

TEST(EvaluationCalibration, BinomialBandHoldsItsProbability) {
  // P(k < n·lower) ≤ 2.5 % < P(k ≤ n·lower) by direct summation of the binomial probabilities.
  const Index n = 50;
  const double p = 0.3;
  const ShareBand band = binomial_band(n, p, 0.95);
  double below_lower = 0.0;
  double up_to_lower = 0.0;
  for (Index k = 0; k <= n; ++k) {
    const double probability =
        std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)) *
        std::pow(p, k) * std::pow(1 - p, n - k);
    if (k < band.lower * n - 1e-9) below_lower += probability;
    if (k <= band.lower * n + 1e-9) up_to_lower += probability;
  }
  EXPECT_LE(below_lower, 0.025);
  EXPECT_GE(up_to_lower, 0.025);
  EXPECT_LT(band.lower, p);
  EXPECT_GT(band.upper, p);
}

TEST(EvaluationCalibration, KolmogorovSmirnovStatisticIsTheLargestGap) {
  const Vector values = (Vector(4) << 0.9, 0.1, 0.35, 0.6).finished();
  // Sorted 0.1, 0.35, 0.6, 0.9: gaps i/n − u = 0.15, 0.15, 0.15, 0.1; u − (i−1)/n = 0.1, 0.1,
  // 0.1, 0.15.
  EXPECT_NEAR(uniformity_test(values).statistic, 0.15, 1e-12);
  // Far from uniform: every value in [0.49, 0.51].
  const Vector crowded = Vector::LinSpaced(200, 0.49, 0.51);
  EXPECT_LT(uniformity_test(crowded).p_value, 1e-20);
}

TEST(EvaluationComparison, DifferencesStandardErrorsAndWinsByHand) {
  ModelEvaluation a;
  ModelEvaluation b;
  a.n = b.n = 4;
  const Vector crps_a = (Vector(4) << 1.0, 2.0, 3.0, 4.0).finished();
  const Vector crps_b = (Vector(4) << 1.5, 1.0, 3.0, 5.0).finished();
  a.scores.push_back({"crps", true, false, crps_a, 2.5, 0.6});
  b.scores.push_back({"crps", true, false, crps_b, 2.625, 0.8});
  a.scores.push_back({"log_likelihood", true, true, -crps_a, -2.5, 0.6});
  b.scores.push_back({"log_likelihood", true, true, -crps_b, -2.625, 0.8});
  a.scores.push_back({"central_width_0.9", false, false, crps_a, 2.5, 0.6});
  b.scores.push_back({"central_width_0.9", false, false, crps_b, 2.625, 0.8});
  const ModelComparison comparison = compare_evaluations({a, b}, {"a", "b"});
  ASSERT_EQ(comparison.scores, (std::vector<std::string>{"crps", "log_likelihood"}));
  // Improvements of b over a, a's loss minus b's: −0.5, 1, 0, −1; mean −0.125, by hand.
  const Vector difference = crps_a - crps_b;
  const double mean = difference.mean();
  const double sd = std::sqrt((difference.array() - mean).square().sum() / 3.0);
  const PairedDifference& first = comparison.differences[0];
  EXPECT_NEAR(first.mean, -0.125, 1e-15);
  EXPECT_NEAR(first.standard_error, sd / 2.0, 1e-15);
  EXPECT_DOUBLE_EQ(first.first_wins, 0.5);    // pairs 1 and 4
  EXPECT_DOUBLE_EQ(first.second_wins, 0.25);  // pair 2; pair 3 is a tie
  // The log-likelihood is higher-is-better: the same pairs are won by the same models, and the
  // improvement has the same sign (b's log-likelihood minus a's).
  EXPECT_DOUBLE_EQ(comparison.differences[1].first_wins, 0.5);
  EXPECT_NEAR(comparison.differences[1].mean, -0.125, 1e-15);
  // Best shares: a wins 2 pairs, b 1, the tie is split.
  EXPECT_DOUBLE_EQ(comparison.best_shares(0, 0), 0.625);
  EXPECT_DOUBLE_EQ(comparison.best_shares(0, 1), 0.375);
  ModelEvaluation shorter = b;
  shorter.n = 3;
  EXPECT_THROW(compare_evaluations({a, shorter}, {"a", "b"}), InvalidArgument);
  EXPECT_THROW(compare_evaluations({a}, {"a"}), InvalidArgument);
}

TEST(EvaluationDensity, DensityModelsGetTheScoresOfTheirDimension) {
  const GaussianMixture density(Standardizer(Vector::Constant(1, 5.0), Vector::Constant(1, 2.0)),
                                (Vector(3) << 0.5, 0.0, 0.5).finished(),
                                (Matrix(1, 3) << -1.0, 0.0, 1.2).finished(),
                                (Matrix(1, 3) << 0.4, 1.0, 0.7).finished());
  const Matrix x = (Matrix(1, 4) << 1.0, 4.0, 6.5, 9.0).finished();
  const ModelEvaluation evaluation = evaluate_density(density, x);
  const Vector log_density = density.log_pdf(x);
  for (Index j = 0; j < 4; ++j) {
    EXPECT_NEAR(evaluation.score("log_likelihood").values(j), log_density(j), 1e-12);
  }
  // CRPS by quadrature of the density model's own CDF.
  const Vector closed_form = evaluation.score("crps").values;
  for (Index j = 0; j < 4; ++j) {
    const Vector below = Vector::LinSpaced(20001, -30.0, x(0, j));
    const Vector above = Vector::LinSpaced(20001, x(0, j), 40.0);
    const Vector f_below = density.cdf(below.transpose()).array().square();
    const Vector f_above = (1.0 - density.cdf(above.transpose()).array()).square();
    EXPECT_NEAR(closed_form(j), trapezoid(below, f_below) + trapezoid(above, f_above), 1e-6);
  }
  EXPECT_NEAR(evaluation.score("cde_loss").mean, held_out_ise(density, x), 1e-12);
}

TEST(EvaluationErrors, BadInputIsRefusedWithAMessage) {
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(5);
  const Matrix y = test.data.y.leftCols(5);
  EXPECT_THROW(evaluate_model(test.model, x.leftCols(1), y.leftCols(1)), DataError);
  EXPECT_THROW(evaluate_model(test.model, x, y.leftCols(4)), InvalidArgument);
  Matrix with_nan = y;
  with_nan(0, 2) = std::nan("");
  EXPECT_THROW(evaluate_model(test.model, x, with_nan), DataError);
  EXPECT_THROW(
      crps(isotropic_gaussian(Vector::Zero(2), 1.0), Matrix::Zero(1, 2), Matrix::Zero(2, 2)),
      InvalidArgument);
  EXPECT_THROW(energy_scores(test.model, x, y, 7, 0), InvalidArgument);
  EXPECT_THROW(pinball_losses(test.model, x, y, {0.5, 1.0}), InvalidArgument);
  EvaluationOptions options;
  options.interval_levels = {0.0};
  EXPECT_THROW(evaluate_model(test.model, x, y, options), InvalidArgument);
  options = {};
  options.histogram_bins = 0;
  EXPECT_THROW(evaluate_model(test.model, x, y, options), InvalidArgument);
  EXPECT_THROW(evaluate_model(test.model, x, Matrix::Zero(2, 5)), InvalidArgument);
}

/// The evaluation's columns without column `left_out`.
Matrix without_column(const Matrix& values, Index left_out) {
  Matrix result(values.rows(), values.cols() - 1);
  result << values.leftCols(left_out), values.rightCols(values.cols() - left_out - 1);
  return result;
}

TEST(EvaluationNonFinite, APairWithAnInfiniteScoreIsLeftOutNamedAndNeverAveraged) {
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(12);
  Matrix y = test.data.y.leftCols(12);
  y(0, 4) = 1e300;  // far beyond every component: log-likelihood −∞, CRPS about 5e299
  const ModelEvaluation evaluation = evaluate_model(test.model, x, y);
  ASSERT_EQ(evaluation.excluded.size(), 1u);
  EXPECT_EQ(evaluation.excluded[0].pair, 4);
  EXPECT_EQ(evaluation.excluded[0].score, "log_likelihood");
  EXPECT_EQ(evaluation.excluded[0].value, -INFINITY);
  EXPECT_EQ(evaluation.n, 11);
  EXPECT_EQ(evaluation.pairs_given, 12);
  EXPECT_EQ(evaluation.pairs, (std::vector<Index>{0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11}));
  // Every value is that of the evaluation of the other eleven pairs alone.
  const ModelEvaluation others =
      evaluate_model(test.model, without_column(x, 4), without_column(y, 4));
  ASSERT_EQ(evaluation.scores.size(), others.scores.size());
  for (std::size_t s = 0; s < others.scores.size(); ++s) {
    EXPECT_EQ(evaluation.scores[s].name, others.scores[s].name);
    EXPECT_TRUE(std::isfinite(evaluation.scores[s].mean) &&
                std::isfinite(evaluation.scores[s].standard_error));
    EXPECT_NEAR(evaluation.scores[s].mean, others.scores[s].mean, 1e-12) << others.scores[s].name;
    EXPECT_NEAR(evaluation.scores[s].standard_error, others.scores[s].standard_error, 1e-12);
  }
  EXPECT_TRUE(evaluation.calibration[1].values.isApprox(others.calibration[1].values, 1e-12));
  // Fewer than two pairs left: refused, naming the first pair left out.
  Matrix mostly_far = Matrix::Constant(1, 12, 1e300);
  mostly_far(0, 7) = y(0, 7);
  const std::string message =
      test::message_of<DataError>([&] { evaluate_model(test.model, x, mostly_far); });
  EXPECT_NE(message.find("only 1 of 12 pairs have finite scores"), std::string::npos) << message;
  EXPECT_NE(message.find("pair 1: log_likelihood"), std::string::npos) << message;
}

TEST(EvaluationNonFinite, HugeFiniteScoresGetFiniteMeansAndStandardErrors) {
  // y near 1e150: log-likelihoods near −1e300, whose squares overflow a plain variance.
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(3);
  const Matrix y = (Matrix(1, 3) << 1e150, -2e150, 3e150).finished();
  EvaluationOptions options;
  options.scores = {"log_likelihood"};
  const ModelEvaluation evaluation = evaluate_model(test.model, x, y, options);
  const ScoreColumn& column = evaluation.score("log_likelihood");
  ASSERT_TRUE(column.values.allFinite());
  // By hand, in units of 1e299.
  const Eigen::ArrayXd scaled = column.values.array() / 1e299;
  const double mean = scaled.mean();
  const double standard_error = std::sqrt((scaled - mean).square().sum() / 2.0 / 3.0);
  EXPECT_NEAR(column.mean / 1e299, mean, 1e-12 * std::abs(mean));
  EXPECT_NEAR(column.standard_error / 1e299, standard_error, 1e-12 * standard_error);
}

/// Pairs of integer y (levels 7 … 9) and a KCDE of them with y declared ordered: a probability
/// mass function, which gives a y between the levels probability 0.
struct DiscreteModel {
  ConditionalMixture model;
  test::PairSample data;
};

DiscreteModel ordered_output_model() {
  test::PairSample data = test::sine_sample(80, 1, 5);
  data.y = (2.0 * data.y.array()).round();
  KcdeOptions options;
  options.ordered = {1};
  ConditionalMixture model = fit_kcde(data.x, data.y, options).model;
  return {std::move(model), std::move(data)};
}

TEST(EvaluationNonFinite, ModelsAreComparedOnThePairsEveryOneScored) {
  const DiscreteModel discrete = ordered_output_model();
  const Matrix x = discrete.data.x.leftCols(10);
  Matrix y = discrete.data.y.leftCols(10);
  // A level above all of the first model's: log-likelihood −∞ under its mass function only; a
  // second model fitted with one more pair at that level gives it a probability.
  const double extra_level = discrete.data.y.maxCoeff() + 1.0;
  y(0, 6) = extra_level;
  test::PairSample wider = discrete.data;
  wider.x.conservativeResize(Eigen::NoChange, wider.x.cols() + 1);
  wider.y.conservativeResize(Eigen::NoChange, wider.y.cols() + 1);
  wider.x(0, wider.x.cols() - 1) = x(0, 6);
  wider.y(0, wider.y.cols() - 1) = extra_level;
  KcdeOptions wider_options;
  wider_options.ordered = {1};
  const ConditionalMixture second = fit_kcde(wider.x, wider.y, wider_options).model;
  EvaluationOptions options;
  options.scores = {"log_likelihood", "brier"};
  const ModelEvaluation a = evaluate_model(discrete.model, x, y, options);
  const ModelEvaluation b = evaluate_model(second, x, y, options);
  ASSERT_EQ(a.excluded.size(), 1u);
  ASSERT_TRUE(b.excluded.empty());
  const ModelComparison comparison = compare_evaluations({a, b}, {"kcde", "wider"});
  EXPECT_EQ(comparison.n, 9);
  EXPECT_EQ(comparison.excluded, (std::vector<Index>{6}));
  const ModelComparison expected = compare_evaluations(
      {evaluate_model(discrete.model, without_column(x, 6), without_column(y, 6), options),
       evaluate_model(second, without_column(x, 6), without_column(y, 6), options)},
      {"kcde", "wider"});
  EXPECT_TRUE(comparison.means.isApprox(expected.means, 1e-12));
  EXPECT_TRUE(comparison.standard_errors.isApprox(expected.standard_errors, 1e-12));
  EXPECT_TRUE(comparison.best_shares.isApprox(expected.best_shares, 1e-12));
  for (std::size_t d = 0; d < expected.differences.size(); ++d) {
    EXPECT_NEAR(comparison.differences[d].mean, expected.differences[d].mean, 1e-12);
    EXPECT_NEAR(comparison.differences[d].standard_error, expected.differences[d].standard_error,
                1e-12);
  }
}

TEST(EvaluationSelection, ScoresAskedForAreThoseOfTheWholeEvaluation) {
  const TestModel test = sine_model_with_trend();
  const Matrix x = test.data.x.leftCols(8);
  const Matrix y = test.data.y.leftCols(8);
  const ModelEvaluation whole = evaluate_model(test.model, x, y);
  EvaluationOptions options;
  options.scores = {"hpd", "log_likelihood"};
  const ModelEvaluation chosen = evaluate_model(test.model, x, y, options);
  std::vector<std::string> names;
  for (const auto& column : chosen.scores) names.push_back(column.name);
  EXPECT_EQ(names, (std::vector<std::string>{"log_likelihood", "hpd_width_0.5", "hpd_width_0.9",
                                             "hpd_coverage_0.5", "hpd_coverage_0.9"}));
  for (const auto& column : chosen.scores) {
    EXPECT_EQ(column.values, whole.score(column.name).values) << column.name;
  }
  ASSERT_EQ(chosen.calibration.size(), 1u);
  EXPECT_EQ(chosen.calibration[0].name, "hpd");
  EXPECT_EQ(chosen.coverage.central.size(), 0);
  EXPECT_EQ(chosen.coverage.highest_density, whole.coverage.highest_density);
  options.scores = {"central"};
  const ModelEvaluation central = evaluate_model(test.model, x, y, options);
  EXPECT_EQ(central.calibration.size(), 1u);
  EXPECT_EQ(central.coverage.central, whole.coverage.central);
  EXPECT_EQ(central.coverage.highest_density.size(), 0);
  options.scores = {"cde_loss"};
  EXPECT_TRUE(evaluate_model(test.model, x, y, options).calibration.empty());
  // Unknown, repeated and inapplicable names are refused, naming them.
  for (const auto& [scores, expected] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"crsp"}, "unknown score 'crsp'"},
           {{"crps", "crps"}, "'crps' is asked for twice"},
           {{"energy_score"}, "energy score"}}) {
    options.scores = scores;
    const std::string message =
        test::message_of<InvalidArgument>([&] { evaluate_model(test.model, x, y, options); });
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
  options.scores = {"crps"};
  EXPECT_THROW(evaluate_model(isotropic_gaussian(Vector::Zero(2), 1.0), Matrix::Zero(1, 4),
                              Matrix::Zero(2, 4), options),
               InvalidArgument);
}

}  // namespace
}  // namespace cdens

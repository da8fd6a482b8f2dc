// The Gaussian-process trend (src/conditional/gaussian_process_regression.hpp) and KCDE around
// it: the marginal likelihood and its gradient against the closed form written out and central
// differences, the posterior mean and spread against the textbook formulas (exact basis and
// reduced basis), the leave-one-out residuals against explicit refits without each pair, and the
// fitted KCDE model's normalisation, round trip and accuracy on smooth data with small noise.

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>

#include "cdens/cdens.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/gaussian_process_regression.hpp"
#include "conditional/standardized_linear_fit.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using LongMatrix = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

/// k(a_i, b_j) = σ_f² exp(−½ Σ_d (a_di − b_dj)² / ℓ_d²), computed in Scalar (double, or long
/// double for references of ill-conditioned formulas).
template <typename Scalar = double>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> ard_kernel(const Matrix& a, const Matrix& b,
                                                                 const Vector& lengths,
                                                                 double signal) {
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> k(a.cols(), b.cols());
  for (Index i = 0; i < a.cols(); ++i) {
    for (Index j = 0; j < b.cols(); ++j) {
      const Scalar distance =
          (a.col(i) - b.col(j)).cwiseQuotient(lengths).template cast<Scalar>().squaredNorm();
      k(i, j) = Scalar(signal) * std::exp(Scalar(-0.5) * distance);
    }
  }
  return k;
}

/// Standardised pairs with a smooth, non-linear mean in x_0 and x_1 and noise of sd `noise`.
StandardizedSamples smooth_pairs(Index n, std::uint64_t seed, double noise = 0.1) {
  Rng rng(seed);
  StandardizedSamples pairs{test::normal_matrix(3, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    pairs.t(0, i) =
        std::sin(1.5 * pairs.z(0, i)) + 0.5 * pairs.z(1, i) * pairs.z(1, i) + noise * rng.normal();
  }
  return pairs;
}

TEST(GaussianProcessTrendTest, MarginalLikelihoodIsTheClosedFormAndItsGradientTheDerivative) {
  const StandardizedSamples pairs = smooth_pairs(40, 1);
  const Vector rho = pairs.t.row(0).transpose();
  const Vector theta = (Vector(5) << 0.1, -0.3, 0.8, -0.5, -2.0).finished();
  Vector gradient;
  const double value = gaussian_process_negative_log_likelihood(pairs.z, rho, theta, &gradient);
  // R&W eq. 5.8 with an explicit inverse and determinant.
  Matrix covariance = ard_kernel(pairs.z, pairs.z, theta.head(3).array().exp(), std::exp(theta(3)));
  covariance.diagonal().array() += std::exp(theta(4));
  const double expected = (0.5 * rho.dot(covariance.inverse() * rho) +
                           0.5 * std::log(covariance.determinant()) + 20.0 * std::log(2.0 * M_PI)) /
                          40.0;
  EXPECT_NEAR(value, expected, 1e-10);
  const Vector differences = test::central_differences(
      [&](const Vector& at) {
        return gaussian_process_negative_log_likelihood(pairs.z, rho, at, nullptr);
      },
      theta, 1e-5);
  for (Index k = 0; k < 5; ++k) {
    EXPECT_NEAR(gradient(k), differences(k), 1e-7) << "parameter " << k;
  }
}

/// The fitted hyperparameters of output 0 as θ.
Vector theta_of(const GaussianProcessOutput& output) {
  Vector theta(output.length_scales.size() + 2);
  theta << output.length_scales.array().log().matrix(), std::log(output.signal_variance),
      std::log(output.noise_variance);
  return theta;
}

TEST(GaussianProcessTrendTest, ExactBasisGivesThePosteriorMeanAndPredictiveSpread) {
  const StandardizedSamples pairs = smooth_pairs(80, 2);
  const GaussianProcessTrendFit fit = fit_gaussian_process_trend(pairs, {});
  ASSERT_EQ(fit.trend->centers().cols(), 80);
  const GaussianProcessOutput& output = fit.trend->outputs()[0];
  // The search ends at a stationary point of the marginal likelihood in the interior.
  Vector gradient;
  const Vector rho = (pairs.t.row(0).array() - output.intercept).matrix().transpose() -
                     pairs.z.transpose() * output.slopes;
  gaussian_process_negative_log_likelihood(pairs.z, rho, theta_of(output), &gradient);
  EXPECT_LT(gradient.cwiseAbs().maxCoeff(), 1e-3);
  // R&W eqs. 2.23-2.24 at new inputs: line + k*ᵀ K_y⁻¹ ρ and σ_n² + σ_f² − k*ᵀ K_y⁻¹ k*.
  Rng rng(3);
  const Matrix queries = test::normal_matrix(3, 7, rng);
  Matrix covariance = ard_kernel(pairs.z, pairs.z, output.length_scales, output.signal_variance);
  covariance.diagonal().array() += output.noise_variance;
  const Matrix cross = ard_kernel(pairs.z, queries, output.length_scales, output.signal_variance);
  const Eigen::LDLT<Matrix> solver(covariance);
  const Vector mean = (output.intercept + (queries.transpose() * output.slopes).array()).matrix() +
                      cross.transpose() * solver.solve(rho);
  const Vector variance =
      (output.noise_variance + output.signal_variance -
       (cross.array() * solver.solve(cross).array()).colwise().sum().transpose())
          .matrix();
  // The fit's basis kernel matrix carries a jitter of 10⁻⁸ σ_f² on its diagonal, which moves the
  // mean and spread by a few 10⁻⁶ here (a wrong formula would move them by tenths).
  EXPECT_LT((fit.trend->location(queries).row(0).transpose() - mean).cwiseAbs().maxCoeff(), 2e-5);
  EXPECT_LT(
      (fit.trend->scale(queries).row(0).transpose() - variance.cwiseSqrt()).cwiseAbs().maxCoeff(),
      2e-5);
}

TEST(GaussianProcessTrendTest, LeaveOneOutResidualsAreThoseOfExplicitRefits) {
  const StandardizedSamples pairs = smooth_pairs(60, 4);
  const GaussianProcessTrendFit fit = fit_gaussian_process_trend(pairs, {});
  const GaussianProcessOutput& output = fit.trend->outputs()[0];
  const Vector rho = (pairs.t.row(0).array() - output.intercept).matrix().transpose() -
                     pairs.z.transpose() * output.slopes;
  double gaussian_nll = 0.0;
  for (Index i = 0; i < 60; i += 7) {
    // The process fitted to the other 59 pairs with the same hyperparameters (and line).
    std::vector<Index> others;
    for (Index j = 0; j < 60; ++j) {
      if (j != i) others.push_back(j);
    }
    const StandardizedSamples rest = gather_pairs(pairs, others);
    Vector rho_rest(59);
    for (Index j = 0; j < 59; ++j) rho_rest(j) = rho(others[static_cast<std::size_t>(j)]);
    Matrix covariance = ard_kernel(rest.z, rest.z, output.length_scales, output.signal_variance);
    covariance.diagonal().array() += output.noise_variance;
    const Vector cross =
        ard_kernel(rest.z, pairs.z.col(i), output.length_scales, output.signal_variance).col(0);
    const Eigen::LDLT<Matrix> solver(covariance);
    const double mean = cross.dot(solver.solve(rho_rest));
    const double variance =
        output.noise_variance + output.signal_variance - cross.dot(solver.solve(cross));
    const double expected = (rho(i) - mean) / std::sqrt(variance);
    // Within the jitter's effect (see above), which the division by 1 − S_ii amplifies.
    EXPECT_NEAR(fit.residuals(0, i), expected, 1e-4 * std::max(1.0, std::abs(expected)));
    EXPECT_NEAR(fit.log_scales(i), 0.5 * std::log(variance), 1e-4);
    gaussian_nll += 0.5 * (std::log(2.0 * M_PI * variance) + expected * expected);
  }
  EXPECT_TRUE(std::isfinite(fit.gaussian_loo_nll));
  EXPECT_TRUE(std::isfinite(gaussian_nll));
}

TEST(GaussianProcessTrendTest, ReducedBasisGivesTheSubsetOfRegressorsPosterior) {
  // The formula below is taken with plain solves of σ⁻² K_Un K_nU + K_UU, whose condition number
  // reaches 10¹² here (one length scale at its bound switches an input off, and the 40 basis
  // pairs crowd the two inputs left): in double precision it is accurate to about 10⁻⁵ only,
  // in long double (ε ≈ 10⁻¹⁹) to about 10⁻⁷. The fit, with its Cholesky factor of K_UU, agrees
  // with the long-double formula to 10⁻⁹; the tolerance is 10⁻⁶.
  const StandardizedSamples pairs = smooth_pairs(300, 5, 0.7);
  GaussianProcessTrendOptions options;
  options.max_basis = 40;
  const GaussianProcessTrendFit fit = fit_gaussian_process_trend(pairs, options);
  const Matrix& basis = fit.trend->centers();
  ASSERT_EQ(basis.cols(), 40);
  const GaussianProcessOutput& output = fit.trend->outputs()[0];
  const Vector rho = (pairs.t.row(0).array() - output.intercept).matrix().transpose() -
                     pairs.z.transpose() * output.slopes;
  // R&W §8.3.1 and the DTC variance of Quiñonero-Candela & Rasmussen (2005) written with K_UU:
  // Σ = (σ⁻² K_Un K_nU + K_UU)⁻¹, μ = σ⁻² k*ᵀ Σ K_Un ρ,
  // v = σ_f² − k*ᵀ K_UU⁻¹ k* + k*ᵀ Σ k*.
  // K_UU carries the fit's jitter 10⁻⁸ σ_f² on its diagonal.
  const long double noise = output.noise_variance;
  LongMatrix k_uu =
      ard_kernel<long double>(basis, basis, output.length_scales, output.signal_variance);
  k_uu.diagonal().array() += 1e-8L * output.signal_variance;
  const LongMatrix k_un =
      ard_kernel<long double>(basis, pairs.z, output.length_scales, output.signal_variance);
  const LongMatrix sigma = Eigen::LDLT<LongMatrix>(k_un * k_un.transpose() / noise + k_uu)
                               .solve(LongMatrix::Identity(40, 40));
  Rng rng(6);
  const Matrix queries = test::normal_matrix(3, 5, rng);
  const LongMatrix cross =
      ard_kernel<long double>(basis, queries, output.length_scales, output.signal_variance);
  const Vector mean =
      (output.intercept + (queries.transpose() * output.slopes).array()).matrix() +
      (cross.transpose() * sigma * k_un * rho.cast<long double>() / noise).cast<double>();
  const Vector variance = (noise + output.signal_variance -
                           (cross.array() * Eigen::LDLT<LongMatrix>(k_uu).solve(cross).array())
                               .colwise()
                               .sum()
                               .transpose() +
                           (cross.array() * (sigma * cross).array()).colwise().sum().transpose())
                              .cast<double>();
  EXPECT_LT((fit.trend->location(queries).row(0).transpose() - mean).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT(
      (fit.trend->scale(queries).row(0).transpose() - variance.cwiseSqrt()).cwiseAbs().maxCoeff(),
      1e-6);
}

ConditionalFit fit_with_trend(const test::PairSample& data, KernelTrend trend) {
  KcdeOptions options;
  options.trend = trend;
  return fit_kcde(data.x, data.y, options);
}

/// y = 3 sin(2 x_0) + x_1² + 0.2 ε: a steep smooth mean and small noise, the case where kernels
/// around the outputs must rebuild the mean from neighbours.
test::PairSample steep_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample data{test::normal_matrix(2, n, rng), Matrix(1, n)};
  for (Index i = 0; i < n; ++i) {
    data.y(0, i) =
        3.0 * std::sin(2.0 * data.x(0, i)) + data.x(1, i) * data.x(1, i) + 0.2 * rng.normal();
  }
  return data;
}

TEST(GaussianProcessTrendTest, AWarmStartIsOneRunToTheOptimumOfTheSearchFromScratch) {
  // Started at the hyperparameters of a fit on 160 of the 200 pairs (as auto's later folds start
  // at its first fold's), one run on every pair ends where the search from scratch (two starts)
  // ends: the same marginal likelihood within the search's relative tolerance of 10⁻⁶.
  const StandardizedSamples pairs = smooth_pairs(200, 16, 0.3);
  const GaussianProcessTrendFit cold = fit_gaussian_process_trend(pairs, {});
  ASSERT_EQ(cold.hyperparameters.size(), 1U);
  EXPECT_TRUE(cold.hyperparameters[0].isApprox(theta_of(cold.trend->outputs()[0]), 1e-12));
  std::vector<Index> first(160);
  for (Index i = 0; i < 160; ++i) first[static_cast<std::size_t>(i)] = i;
  GaussianProcessTrendOptions options;
  options.warm_starts = fit_gaussian_process_trend(gather_pairs(pairs, first), {}).hyperparameters;
  const GaussianProcessTrendFit warm = fit_gaussian_process_trend(pairs, options);
  const GaussianProcessOutput& output = cold.trend->outputs()[0];
  const Vector rho = (pairs.t.row(0).array() - output.intercept).matrix().transpose() -
                     pairs.z.transpose() * output.slopes;
  const double cold_value =
      gaussian_process_negative_log_likelihood(pairs.z, rho, cold.hyperparameters[0], nullptr);
  const double warm_value =
      gaussian_process_negative_log_likelihood(pairs.z, rho, warm.hyperparameters[0], nullptr);
  EXPECT_NEAR(warm_value, cold_value, 1e-5 * std::abs(cold_value));
  EXPECT_LT(warm.evaluations, cold.evaluations / 2);
  // A start of another size is refused.
  options.warm_starts = {Vector::Zero(3)};
  EXPECT_THROW(fit_gaussian_process_trend(pairs, options), InvalidArgument);
}

TEST(GaussianProcessTrendTest, KcdeAroundTheTrendIsADensityThatRoundTrips) {
  const test::PairSample train = steep_sample(150, 7);
  const ConditionalFit fit = fit_with_trend(train, KernelTrend::gaussian_process);
  EXPECT_EQ(fit.model.trend()->kind(), "gaussian_process");
  EXPECT_EQ(fit.report.statistics.at("gaussian_process_trend"), 1.0);
  EXPECT_TRUE(fit.report.hyperparameters.count("trend_length_scale_x1"));
  const test::PairSample queries = steep_sample(4, 8);
  for (Index j = 0; j < 4; ++j) {
    const Vector x = queries.x.col(j);
    EXPECT_NEAR(test::integral_over_y(fit.model, x, -12.0, 12.0, 24001), 1.0, 1e-6);
  }
  test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
}

TEST(GaussianProcessTrendTest, KcdeLeaveOneOutNllIsInTheUsersUnits) {
  // loo_nll = mean −log p̂_{−i}(e_i | x_i) + mean log f_{−i} − log|∂t/∂y|: scaling y by c moves it
  // by log c exactly (the standardisation absorbs c).
  const test::PairSample train = steep_sample(120, 9);
  test::PairSample scaled = train;
  scaled.y *= 10.0;
  const double base =
      fit_with_trend(train, KernelTrend::gaussian_process).report.statistics.at("loo_nll");
  const double moved =
      fit_with_trend(scaled, KernelTrend::gaussian_process).report.statistics.at("loo_nll");
  EXPECT_NEAR(moved - base, std::log(10.0), 1e-6);
  // Its held-out log-densities average to it, each moved by −log 10 with the scaling.
  const ConditionalFit fit = fit_with_trend(train, KernelTrend::gaussian_process);
  const ConditionalFit fit_scaled = fit_with_trend(scaled, KernelTrend::gaussian_process);
  EXPECT_NEAR(-fit.report.held_out->log_densities.mean(), base, 1e-12);
  EXPECT_TRUE(fit_scaled.report.held_out->log_densities.isApprox(
      (fit.report.held_out->log_densities.array() - std::log(10.0)).matrix(), 1e-6));
}

TEST(GaussianProcessTrendTest, BeatsKernelsAroundTheOutputsOnASteepSmoothMean) {
  // 400 training pairs, 2,000 test pairs: the standard error of a mean test NLL is about
  // 0.02 nats; the trend's advantage on this mean is several tenths.
  const test::PairSample train = steep_sample(400, 10);
  const test::PairSample test_pairs = steep_sample(2000, 11);
  const double plain =
      -fit_with_trend(train, KernelTrend::none).model.log_pdf(test_pairs.x, test_pairs.y).mean();
  const double trended = -fit_with_trend(train, KernelTrend::gaussian_process)
                              .model.log_pdf(test_pairs.x, test_pairs.y)
                              .mean();
  // The noise's own entropy: ½ log(2π e 0.04) = −0.19 nats.
  EXPECT_LT(trended, plain - 0.2);
  EXPECT_LT(trended, -0.19 + 0.15);
}

TEST(GaussianProcessTrendTest, KcdeAroundTheTrendIsIndependentOfTheThreadCount) {
  const test::PairSample train = steep_sample(120, 13);
  KcdeOptions options;
  options.trend = KernelTrend::gaussian_process;
  test::expect_independent_of_thread_count(
      [&](const FitContext& context) { return fit_kcde(train.x, train.y, options, context); });
}

TEST(GaussianProcessTrendTest, TheProcessComponentHasTheLeaveOneOutWeightAndTheRestShareTheGate) {
  const test::PairSample train = steep_sample(150, 14);
  const ConditionalFit fit = fit_with_trend(train, KernelTrend::gaussian_process);
  const auto& gate = dynamic_cast<const BroadComponentGate&>(fit.model.gate());
  const double weight = fit.report.hyperparameters.at("trend_component_weight");
  EXPECT_EQ(gate.weight(), weight);
  EXPECT_GE(weight, 1.0 / 150.0);
  // π over the 150 kernels and the process's component: (1 − δ) π_inner, then δ.
  const Matrix z = fit.model.x_scaling().transform(steep_sample(3, 15).x);
  Matrix inner(150, 3);
  gate.inner().log_weights(z, inner);
  Matrix all(151, 3);
  gate.log_weights(z, all);
  for (Index j = 0; j < 3; ++j) {
    const Vector expected = (inner.col(j).array() - inner.col(j).maxCoeff()).exp();
    const Vector shares = all.col(j).head(150).array().exp();
    EXPECT_TRUE(shares.isApprox((1.0 - weight) * expected / expected.sum(), 1e-12));
    EXPECT_NEAR(std::exp(all(150, j)), weight, 1e-15);
  }
  // The component is N(e; 0, 1).
  EXPECT_EQ(fit.model.centers()(0, 150), 0.0);
  EXPECT_EQ(fit.model.scales()(0, 150), 1.0);
}

TEST(GaussianProcessTrendTest, DiscreteOutputsAreRefused) {
  const test::PairSample train = steep_sample(60, 12);
  test::PairSample rounded = train;
  rounded.y = rounded.y.array().round();
  KcdeOptions options;
  options.trend = KernelTrend::gaussian_process;
  options.ordered = {2};
  EXPECT_THROW(fit_kcde(rounded.x, rounded.y, options), InvalidArgument);
}

}  // namespace
}  // namespace cdens

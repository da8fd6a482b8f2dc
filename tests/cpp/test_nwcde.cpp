// NW-CDE (SA-CDE eq. 25) against brute force: the Nadaraya–Watson ratio written out in the user's
// units, leave-one-out cross-validation redone by explicit refits without each centre,
// quadrature over y, a model-file round trip, thread counts and bad options.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/samples.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Eq. (25) in the user's units over the pairs `centers` of `train`: weights
/// exp(−‖(x − x_b) / s_x‖² / 2σ²), output kernels of width σ s_y. Done in log space so that far
/// inputs stay exact.
double direct_log_density(const Matrix& center_x, const Matrix& center_y, const Vector& x_scale,
                          double y_scale, double sigma, const Vector& x, const Vector& y) {
  std::vector<double> log_weights;
  double largest = -INFINITY;
  for (Index b = 0; b < center_x.cols(); ++b) {
    log_weights.push_back(
        -((center_x.col(b) - x).array() / x_scale.array()).matrix().squaredNorm() /
        (2 * sigma * sigma));
    largest = std::max(largest, log_weights.back());
  }
  double numerator = 0.0, denominator = 0.0;
  for (Index b = 0; b < center_x.cols(); ++b) {
    const double weight = std::exp(log_weights[static_cast<std::size_t>(b)] - largest);
    numerator += weight * test::gaussian_density(y, center_y.col(b), sigma * y_scale);
    denominator += weight;
  }
  return std::log(numerator / denominator);
}

NwcdeOptions single(double sigma, Index n_centers) {
  NwcdeOptions options;
  options.sigma = {sigma};
  options.n_centers = n_centers;
  return options;
}

TEST(NadarayaWatsonCdeTest, LogPdfMatchesEquationTwentyFiveInUserUnits) {
  const test::PairSample train = test::sine_sample(50, 2, 1);
  const ConditionalFit fit = fit_nwcde(train.x, train.y, single(0.4, 100));
  EXPECT_FALSE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.model.gate().kind(), "gaussian_kernel");
  EXPECT_EQ(fit.model.n_components(), 50);  // B = min(100, n): every pair, in data order
  EXPECT_EQ(fit.report.statistics.at("n_centers"), 50.0);
  const test::PairSample queries = test::sine_sample(20, 2, 2);
  Matrix x = queries.x;
  x.col(0) = train.x.col(0) + Vector::Constant(2, 60.0);  // far: weights underflow in linear space
  const Vector log_density = fit.model.log_pdf(x, queries.y);
  for (Index j = 0; j < x.cols(); ++j) {
    const double expected =
        direct_log_density(train.x, train.y, test::sample_scale(train.x),
                           test::sample_scale(train.y)(0), 0.4, x.col(j), queries.y.col(j));
    EXPECT_NEAR(log_density(j), expected, 1e-9 * std::max(1.0, std::abs(expected)))
        << "query " << j;
  }
}

TEST(NadarayaWatsonCdeTest, CentresAreARandomSubsetOfTheTrainingPairs) {
  const test::PairSample train = test::sine_sample(150, 1, 3);
  NwcdeOptions options = single(0.3, 40);
  options.seed = 5;
  const ConditionalFit fit = fit_nwcde(train.x, train.y, options);
  EXPECT_EQ(fit.model.n_components(), 40);
  // The centres are the pairs of the first 40 entries of the seeded permutation (as LSCDE's).
  Rng rng(5);
  auto chosen = rng.permutation(150);
  chosen.resize(40);
  const Matrix center_x = gather_samples(train.x, chosen);
  const Matrix center_y = gather_samples(train.y, chosen);
  const test::PairSample queries = test::sine_sample(10, 1, 4);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < 10; ++j) {
    EXPECT_NEAR(
        log_density(j),
        direct_log_density(center_x, center_y, test::sample_scale(train.x),
                           test::sample_scale(train.y)(0), 0.3, queries.x.col(j), queries.y.col(j)),
        1e-10);
  }
}

/// The leave-one-out table redone by explicit refits: for each centre b the NW-CDE of the other
/// B − 1 centres (standardisation of all the data) scores −log p̂(y_b | x_b).
void expect_loo_matches_explicit_refits(Index n, Index n_centers, std::uint64_t seed) {
  const test::PairSample data = test::sine_sample(n, 2, seed);
  NwcdeOptions options;
  options.sigma = {0.01, 0.05, 0.3, 1.0, 4.0};
  options.n_centers = n_centers;
  options.seed = seed;
  const ConditionalFit fit = fit_nwcde(data.x, data.y, options);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  const CvTable& table = *fit.report.cross_validation;
  EXPECT_EQ(table.parameter_names, std::vector<std::string>{"sigma"});
  const Standardizer x_scaling = Standardizer::fit(data.x, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, "y");
  Rng rng(seed);
  std::vector<Index> centers;
  if (n_centers >= n) {
    for (Index i = 0; i < n; ++i) centers.push_back(i);
  } else {
    centers = rng.permutation(n);
    centers.resize(static_cast<std::size_t>(n_centers));
  }
  const auto count = static_cast<Index>(centers.size());
  EXPECT_EQ(fit.report.statistics.at("folds"), static_cast<double>(count));
  const Matrix z = x_scaling.transform(gather_samples(data.x, centers));
  const Matrix t = y_scaling.transform(gather_samples(data.y, centers));
  for (std::size_t s = 0; s < options.sigma.size(); ++s) {
    Vector losses(count);
    for (Index b = 0; b < count; ++b) {
      std::vector<Index> others;
      for (Index c = 0; c < count; ++c) {
        if (c != b) others.push_back(c);
      }
      const ConditionalMixture model = make_output_kernel_mixture(
          x_scaling, y_scaling,
          std::make_shared<const GaussianKernelGate>(gather_samples(z, others), options.sigma[s]),
          gather_samples(t, others), options.sigma[s]);
      losses(b) = -model.log_pdf(data.x.col(centers[static_cast<std::size_t>(b)]),
                                 data.y.col(centers[static_cast<std::size_t>(b)]))(0);
    }
    const auto row = static_cast<Index>(s);
    EXPECT_EQ(table.candidates(row, 0), options.sigma[s]);
    EXPECT_NEAR(table.mean_loss(row), losses.mean(), 1e-9 * std::max(1.0, std::abs(losses.mean())))
        << "sigma " << options.sigma[s];
    const double standard_error =
        std::sqrt((losses.array() - losses.mean()).square().sum() / (count - 1.0) / count);
    EXPECT_NEAR(table.standard_error(row), standard_error, 1e-9 * std::max(1.0, standard_error));
  }
  EXPECT_EQ(table.best, best_candidate(table.mean_loss));
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), table.candidates(table.best, 0));
}

TEST(NadarayaWatsonCdeTest, LeaveOneOutMatchesExplicitRefitsOverAllPairs) {
  expect_loo_matches_explicit_refits(35, 100, 6);
}

TEST(NadarayaWatsonCdeTest, LeaveOneOutMatchesExplicitRefitsOverRandomCentres) {
  expect_loo_matches_explicit_refits(80, 30, 7);
}

TEST(NadarayaWatsonCdeTest, LeaveOneOutSpansSeveralBlocks) {
  // More centres than one block of the engine (256).
  expect_loo_matches_explicit_refits(300, 300, 8);
}

TEST(NadarayaWatsonCdeTest, DensityIntegratesToOneOverY) {
  const test::PairSample train = test::sine_sample(150, 1, 9);
  const ConditionalFit fit = fit_nwcde(train.x, train.y);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.cross_validation->candidates.rows(), 20);
  EXPECT_EQ(fit.model.n_components(), 100);
  test::expect_integrates_to_one(fit.model, train.y, {-5.0, -2.0, 0.0, 1.5, 30.0});
}

TEST(NadarayaWatsonCdeTest, ModelFileRoundTripIsBitIdentical) {
  const test::PairSample train = test::sine_sample(120, 2, 10);
  const ConditionalFit fit = fit_nwcde(train.x, train.y);
  const test::PairSample queries = test::sine_sample(40, 2, 11);
  const ConditionalMixture loaded =
      test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
  EXPECT_EQ(dynamic_cast<const GaussianKernelGate&>(loaded.gate()).sigma(),
            fit.report.hyperparameters.at("sigma"));
}

TEST(NadarayaWatsonCdeTest, ResultDoesNotDependOnThreadCount) {
  const test::PairSample train = test::sine_sample(700, 3, 12);
  NwcdeOptions options;
  options.n_centers = 600;
  test::expect_independent_of_thread_count(
      [&](const FitContext& context) { return fit_nwcde(train.x, train.y, options, context); });
}

TEST(NadarayaWatsonCdeTest, RejectsBadInputAndOptions) {
  const test::PairSample data = test::sine_sample(20, 2, 13);
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_nwcde(x, y); });
  NwcdeOptions options;
  options.sigma = {0.2, -0.1};
  EXPECT_THROW(fit_nwcde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.sigma = {};
  EXPECT_THROW(fit_nwcde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.n_centers = 0;
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_nwcde(data.x, data.y, options);
            }).find("option n_centers must be at least 1"),
            std::string::npos);
  options = {};
  options.n_centers = 1;  // leave-one-out needs two centres
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_nwcde(data.x, data.y, options);
            }).find("leave-one-out"),
            std::string::npos);
  options.sigma = {0.5};  // one centre is fine without cross-validation
  EXPECT_EQ(fit_nwcde(data.x, data.y, options).model.n_components(), 1);
  EXPECT_THROW(fit_nwcde(data.x, data.y, NwcdeOptions{}, FitContext{}.with_threads(-2)),
               InvalidArgument);
  EXPECT_THROW(GaussianKernelGate(Matrix::Zero(1, 2), -1.0), InvalidArgument);
}

}  // namespace
}  // namespace cdens

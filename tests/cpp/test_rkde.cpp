// RKDE (LSCDE paper §3.4) against brute force: both kernel density estimates written out in the
// user's units, their cross-validation redone fold by fold, the renormalised ratio, the mass of
// the raw ratio, quadrature over y, a model-file round trip, thread counts and bad options.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// log of the Gaussian KDE (1/n) Σ_i N(p; p_i, diag(σ s)²) of the columns of `points` at `at`,
/// where s are the per-dimension sample standard deviations of `points` (the standardisation).
/// Summed around the largest term, so that points far in the tails stay exact.
double direct_log_kde(const Matrix& points, const Vector& scale, double sigma, const Vector& at) {
  constexpr double kPi = 3.14159265358979323846;
  std::vector<double> terms;
  for (Index i = 0; i < points.cols(); ++i) {
    double term = 0.0;
    for (Index d = 0; d < points.rows(); ++d) {
      const double width = sigma * scale(d);
      term -= std::pow(at(d) - points(d, i), 2) / (2 * width * width) +
              std::log(std::sqrt(2 * kPi) * width);
    }
    terms.push_back(term);
  }
  const double largest = *std::max_element(terms.begin(), terms.end());
  double sum = 0.0;
  for (double term : terms) sum += std::exp(term - largest);
  return largest + std::log(sum / static_cast<double>(points.cols()));
}

Matrix stacked(const test::PairSample& pairs) {
  Matrix joint(pairs.x.rows() + pairs.y.rows(), pairs.x.cols());
  joint << pairs.x, pairs.y;
  return joint;
}

RkdeOptions grid(std::vector<double> sigmas, int folds, std::uint64_t seed) {
  RkdeOptions options;
  options.sigma = std::move(sigmas);
  options.folds = folds;
  options.seed = seed;
  return options;
}

TEST(RkdeTest, LogPdfIsTheRenormalisedRatioOfKdesInUserUnits) {
  const test::PairSample train = test::sine_sample(40, 2, 1);
  const ConditionalFit fit = fit_rkde(train.x, train.y, grid({0.35}, 5, 0));
  EXPECT_FALSE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), 0.35);
  EXPECT_EQ(fit.report.hyperparameters.at("sigma_marginal"), 0.35);
  EXPECT_EQ(fit.report.statistics.at("mean_log_ratio_mass"), 0.0);
  EXPECT_EQ(fit.model.n_components(), 40);
  const Vector joint_scale = test::sample_scale(stacked(train));
  const Vector x_scale = test::sample_scale(train.x);
  const test::PairSample queries = test::sine_sample(15, 2, 2);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < 15; ++j) {
    Vector at(3);
    at << queries.x.col(j), queries.y.col(j);
    // With one width the raw ratio p̂(x, y) / p̂(x) is already a density in y.
    const double log_ratio = direct_log_kde(stacked(train), joint_scale, 0.35, at) -
                             direct_log_kde(train.x, x_scale, 0.35, queries.x.col(j));
    EXPECT_NEAR(log_density(j), log_ratio, 1e-10) << "query " << j;
  }
}

TEST(RkdeTest, CrossValidationOfBothKdesMatchesExplicitFoldLikelihoods) {
  const test::PairSample data = test::sine_sample(42, 2, 3);
  const RkdeOptions options = grid({0.05, 0.2, 0.5, 1.0, 3.0}, 3, 4);
  const ConditionalFit fit = fit_rkde(data.x, data.y, options);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  const CvTable& joint = *fit.report.cross_validation;
  ASSERT_EQ(fit.report.auxiliary_cross_validation.count("marginal_kde"), 1u);
  const CvTable& marginal = fit.report.auxiliary_cross_validation.at("marginal_kde");
  EXPECT_EQ(joint.loss, "joint_nll");
  EXPECT_EQ(marginal.loss, "marginal_nll");
  EXPECT_EQ(marginal.parameter_names, std::vector<std::string>{"sigma_marginal"});
  // Held-out likelihoods of each KDE fitted on the other folds, with the standardisation of all
  // the data (scales in the user's units).
  const Matrix all = stacked(data);
  const Vector joint_scale = test::sample_scale(all);
  const Vector x_scale = test::sample_scale(data.x);
  Rng rng(options.seed);
  const KFold folds(42, options.folds, rng);
  for (std::size_t s = 0; s < options.sigma.size(); ++s) {
    Vector joint_fold(options.folds), marginal_fold(options.folds);
    for (int k = 0; k < options.folds; ++k) {
      const Matrix train_joint = gather_samples(all, folds.train(k));
      const Matrix train_x = gather_samples(data.x, folds.train(k));
      double joint_sum = 0.0, marginal_sum = 0.0;
      for (Index i : folds.test(k)) {
        joint_sum -= direct_log_kde(train_joint, joint_scale, options.sigma[s], all.col(i));
        marginal_sum -= direct_log_kde(train_x, x_scale, options.sigma[s], data.x.col(i));
      }
      joint_fold(k) = joint_sum / static_cast<double>(folds.test(k).size());
      marginal_fold(k) = marginal_sum / static_cast<double>(folds.test(k).size());
    }
    const auto row = static_cast<Index>(s);
    // σ = 0.05 puts most held-out pairs far out in the tails, where direct_kde is still exact.
    EXPECT_NEAR(joint.mean_loss(row), joint_fold.mean(), 1e-9 * std::abs(joint_fold.mean()))
        << "sigma " << options.sigma[s];
    EXPECT_NEAR(marginal.mean_loss(row), marginal_fold.mean(),
                1e-9 * std::abs(marginal_fold.mean()))
        << "sigma " << options.sigma[s];
  }
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), joint.candidates(joint.best, 0));
  EXPECT_EQ(fit.report.hyperparameters.at("sigma_marginal"), marginal.candidates(marginal.best, 0));
  EXPECT_EQ(joint.best, best_candidate(joint.mean_loss));
  EXPECT_EQ(marginal.best, best_candidate(marginal.mean_loss));
}

TEST(RkdeTest, RatioMassIsTheIntegralOfTheRawRatio) {
  const test::PairSample train = test::sine_sample(60, 1, 5);
  const ConditionalFit fit = fit_rkde(train.x, train.y, grid({0.1, 0.3, 1.0}, 4, 6));
  const double sigma_joint = fit.report.hyperparameters.at("sigma");
  const double sigma_marginal = fit.report.hyperparameters.at("sigma_marginal");
  ASSERT_NE(sigma_joint, sigma_marginal) << "the test needs two different widths";
  // ∫ p̂(x_i, y) / p̂(x_i) dy = p̂_{σ_j}(x_i) / p̂_{σ_m}(x_i): the x-marginal of the joint KDE over
  // the marginal KDE. Check it by quadrature of the raw ratio at a few points first.
  const Vector x_scale = test::sample_scale(train.x);
  const Matrix all = stacked(train);
  const Vector joint_scale = test::sample_scale(all);
  double mean_log_mass = 0.0;
  for (Index i = 0; i < 60; ++i) {
    mean_log_mass += (direct_log_kde(train.x, x_scale, sigma_joint, train.x.col(i)) -
                      direct_log_kde(train.x, x_scale, sigma_marginal, train.x.col(i))) /
                     60.0;
  }
  for (Index i : {0, 17, 42}) {
    const double low = train.y.minCoeff() - 2, high = train.y.maxCoeff() + 2;
    const int points = 8001;
    double integral = 0.0;
    for (int g = 0; g < points; ++g) {
      const double y = low + (high - low) * g / (points - 1.0);
      const Vector at = (Vector(2) << train.x(0, i), y).finished();
      integral += (g == 0 || g == points - 1 ? 0.5 : 1.0) *
                  std::exp(direct_log_kde(all, joint_scale, sigma_joint, at) -
                           direct_log_kde(train.x, x_scale, sigma_marginal, train.x.col(i)));
    }
    integral *= (high - low) / (points - 1.0);
    EXPECT_NEAR(integral,
                std::exp(direct_log_kde(train.x, x_scale, sigma_joint, train.x.col(i)) -
                         direct_log_kde(train.x, x_scale, sigma_marginal, train.x.col(i))),
                1e-6);
  }
  EXPECT_NEAR(fit.report.statistics.at("mean_log_ratio_mass"), mean_log_mass, 1e-10);
}

TEST(RkdeTest, DensityIntegratesToOneOverY) {
  const test::PairSample train = test::sine_sample(150, 1, 7);
  const ConditionalFit fit = fit_rkde(train.x, train.y);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.cross_validation->candidates.rows(), 10);
  test::expect_integrates_to_one(fit.model, train.y, {-4.0, -1.0, 0.5, 2.0, 50.0});
}

TEST(RkdeTest, ModelFileRoundTripIsBitIdenticalAndKeepsBothTables) {
  const test::PairSample train = test::sine_sample(90, 2, 8);
  const ConditionalFit fit = fit_rkde(train.x, train.y, grid({0.1, 0.3, 1.0}, 5, 1));
  const test::PairSample queries = test::sine_sample(30, 2, 9);
  test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
}

TEST(RkdeTest, ResultDoesNotDependOnThreadCount) {
  const test::PairSample train = test::sine_sample(800, 2, 10);
  test::expect_independent_of_thread_count([&](const FitContext& context) {
    const ConditionalFit fit = fit_rkde(train.x, train.y, RkdeOptions{}, context);
    EXPECT_NE(fit.report.hyperparameters.at("sigma"),
              fit.report.hyperparameters.at("sigma_marginal"));  // the ratio mass is computed
    return fit;
  });
}

TEST(RkdeTest, RejectsBadInputAndOptions) {
  const test::PairSample data = test::sine_sample(12, 1, 11);
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_rkde(x, y); });
  EXPECT_THROW(fit_rkde(data.x, data.y, grid({0.1, 0.0}, 5, 0)), InvalidArgument);
  EXPECT_THROW(fit_rkde(data.x, data.y, grid({}, 5, 0)), InvalidArgument);
  EXPECT_THROW(fit_rkde(data.x, data.y, grid({0.1, INFINITY}, 5, 0)), InvalidArgument);
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_rkde(data.x, data.y, grid({0.1, 0.5}, 13, 0));
            }).find("folds"),
            std::string::npos);
  EXPECT_THROW(fit_rkde(data.x, data.y, grid({0.1, 0.5}, 0, 0)), InvalidArgument);
  EXPECT_THROW(fit_rkde(data.x, data.y, RkdeOptions{}, FitContext{}.with_threads(-1)),
               InvalidArgument);
}

}  // namespace
}  // namespace cdens

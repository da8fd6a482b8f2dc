// ε-KDE (LSCDE paper §3.1, SA-CDE eq. 23) against brute force: the estimate written out as a
// direct average over the ε-ball in the user's units, cross-validation redone fold by fold with
// hand-built models, quadrature over y, a model-file round trip, thread counts and bad options.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/samples.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Eq. (23) in the user's units: the ball is ‖(x_i − x) / s_x‖ ≤ ε and the output kernel has
/// width σ s_y; an empty ball averages over all training pairs.
double direct_density(const test::PairSample& train, double epsilon, double sigma, const Vector& x,
                      const Vector& y) {
  const Vector x_scale = test::sample_scale(train.x);
  const double y_scale = test::sample_scale(train.y)(0);
  double inside_sum = 0.0, all_sum = 0.0;
  int inside = 0;
  for (Index i = 0; i < train.x.cols(); ++i) {
    const double kernel = test::gaussian_density(y, train.y.col(i), sigma * y_scale);
    all_sum += kernel;
    if (((train.x.col(i) - x).array() / x_scale.array()).matrix().norm() <= epsilon) {
      inside_sum += kernel;
      ++inside;
    }
  }
  return inside > 0 ? inside_sum / inside : all_sum / static_cast<double>(train.x.cols());
}

EkdeOptions single(double epsilon, double sigma) {
  EkdeOptions options;
  options.epsilon = {epsilon};
  options.sigma = {sigma};
  return options;
}

TEST(EpsilonKdeTest, LogPdfMatchesTheBallAverageInUserUnits) {
  const test::PairSample train = test::sine_sample(60, 2, 1);
  const ConditionalFit fit = fit_ekde(train.x, train.y, single(0.6, 0.3));
  EXPECT_FALSE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.hyperparameters.at("epsilon"), 0.6);
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), 0.3);
  EXPECT_EQ(fit.model.n_components(), 60);
  EXPECT_EQ(fit.model.gate().kind(), "epsilon_ball");
  // Queries near the data, between the data and far away (empty balls).
  const test::PairSample queries = test::sine_sample(25, 2, 2);
  Matrix x = queries.x;
  x.col(0) = train.x.col(0) + Vector::Constant(2, 100.0);
  x.col(1) = train.x.col(3);  // a training input: never an empty ball
  const Vector log_density = fit.model.log_pdf(x, queries.y);
  int empty = 0;
  for (Index j = 0; j < x.cols(); ++j) {
    const double expected = direct_density(train, 0.6, 0.3, x.col(j), queries.y.col(j));
    EXPECT_NEAR(log_density(j), std::log(expected), 1e-10) << "query " << j;
    const Vector x_scale = test::sample_scale(train.x);
    bool any = false;
    for (Index i = 0; i < 60; ++i) {
      any |= ((train.x.col(i) - x.col(j)).array() / x_scale.array()).matrix().norm() <= 0.6;
    }
    empty += any ? 0 : 1;
  }
  EXPECT_GE(empty, 1);  // the far query at least
  EXPECT_LT(empty, 25);
}

TEST(EpsilonKdeTest, EmptyBallIsTheKernelDensityEstimateOverAllOutputs) {
  const test::PairSample train = test::sine_sample(30, 1, 3);
  const ConditionalFit fit = fit_ekde(train.x, train.y, single(0.2, 0.5));
  const Matrix far_x = Matrix::Constant(1, 3, 1e3);
  const Matrix y = (Matrix(1, 3) << 3.5, 4.0, 4.4).finished();
  const Vector log_density = fit.model.log_pdf(far_x, y);
  const double y_scale = test::sample_scale(train.y)(0);
  for (Index j = 0; j < 3; ++j) {
    double kde = 0.0;
    for (Index i = 0; i < 30; ++i)
      kde += test::gaussian_density(y.col(j), train.y.col(i), 0.5 * y_scale);
    EXPECT_NEAR(log_density(j), std::log(kde / 30.0), 1e-12);
  }
  // The fallback is a density too, and the same for every far input.
  EXPECT_NEAR(test::integral_over_y(fit.model, far_x.col(0), 0.0, 8.0, 4001), 1.0, 1e-8);
  EXPECT_EQ(fit.model.pdf_grid(far_x.col(0), y), fit.model.pdf_grid(-far_x.col(0), y));
}

/// Cross-validation redone by hand: the same folds (same seed), and for every fold and candidate
/// the ε-KDE of the other folds (with the standardisation of all the data) scored on this fold.
void expect_cv_matches_explicit_refits(const test::PairSample& data, const EkdeOptions& options) {
  const ConditionalFit fit = fit_ekde(data.x, data.y, options);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  const CvTable& table = *fit.report.cross_validation;
  EXPECT_EQ(table.parameter_names, (std::vector<std::string>{"epsilon", "sigma"}));
  EXPECT_EQ(table.loss, "kl");
  const Standardizer x_scaling = Standardizer::fit(data.x, "x");
  const Standardizer y_scaling = Standardizer::fit(data.y, "y");
  const Matrix z = x_scaling.transform(data.x), t = y_scaling.transform(data.y);
  Rng rng(options.seed);
  const KFold folds(data.x.cols(), options.folds, rng);
  const auto sigma_count = options.sigma.size();
  for (std::size_t e = 0; e < options.epsilon.size(); ++e) {
    for (std::size_t s = 0; s < sigma_count; ++s) {
      Vector fold_loss(options.folds);
      for (int k = 0; k < options.folds; ++k) {
        const auto train = folds.train(k);
        const ConditionalMixture model = make_output_kernel_mixture(
            x_scaling, y_scaling,
            std::make_shared<const EpsilonBallGate>(gather_samples(z, train), options.epsilon[e]),
            gather_samples(t, train), options.sigma[s]);
        fold_loss(k) = negative_log_likelihood(model, gather_samples(data.x, folds.test(k)),
                                               gather_samples(data.y, folds.test(k)));
      }
      const auto row = static_cast<Index>(e * sigma_count + s);
      const double mean = fold_loss.mean();
      EXPECT_EQ(table.candidates(row, 0), options.epsilon[e]);
      EXPECT_EQ(table.candidates(row, 1), options.sigma[s]);
      EXPECT_NEAR(table.mean_loss(row), mean, 1e-10 * std::max(1.0, std::abs(mean)))
          << "epsilon " << options.epsilon[e] << " sigma " << options.sigma[s];
      const double standard_error =
          std::sqrt((fold_loss.array() - mean).square().sum() / (options.folds - 1.0)) /
          std::sqrt(static_cast<double>(options.folds));
      EXPECT_NEAR(table.standard_error(row), standard_error, 1e-9 * std::max(1.0, standard_error));
    }
  }
  EXPECT_EQ(table.best, best_candidate(table.mean_loss));
  EXPECT_EQ(fit.report.hyperparameters.at("epsilon"), table.candidates(table.best, 0));
  EXPECT_EQ(fit.report.hyperparameters.at("sigma"), table.candidates(table.best, 1));
  EXPECT_EQ(fit.report.statistics.at("folds"), options.folds);
}

TEST(EpsilonKdeTest, CrossValidationMatchesExplicitRefits) {
  EkdeOptions options;
  // Radii from "always empty" to "everything", unsorted and with a repeat; σ small enough that
  // most output kernels underflow in linear space.
  options.epsilon = {0.8, 0.01, 0.3, 5.0, 0.3};
  options.sigma = {0.02, 0.2, 1.0};
  options.folds = 4;
  options.seed = 7;
  expect_cv_matches_explicit_refits(test::sine_sample(45, 2, 4), options);
}

TEST(EpsilonKdeTest, CrossValidationOnManySamplesMatchesExplicitRefits) {
  // More held-out samples per fold than one run of the CV engine holds (256).
  EkdeOptions options;
  options.epsilon = {0.05, 0.4};
  options.sigma = {0.1, 0.5};
  options.folds = 2;
  options.seed = 3;
  expect_cv_matches_explicit_refits(test::sine_sample(700, 3, 5), options);
}

TEST(EpsilonKdeTest, DefaultGridsAreTheSaCdePapers) {
  const auto radii = ekde_paper_radii();
  const auto thresholds = log_spaced(1e-2, 5.0, 20);  // SA-CDE §3.1, on ‖x_i − x‖²
  ASSERT_EQ(radii.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_NEAR(radii[i] * radii[i], thresholds[i], 1e-15 * 5);
  const auto widths = sa_cde_width_grid();  // SA-CDE §3: twenty values from 1e-2 to 2
  ASSERT_EQ(widths.size(), 20u);
  EXPECT_EQ(widths.front(), 1e-2);
  EXPECT_EQ(widths.back(), 2.0);
  EXPECT_EQ(EkdeOptions{}.folds, 5);
}

TEST(EpsilonKdeTest, DensityIntegratesToOneOverY) {
  const test::PairSample train = test::sine_sample(200, 1, 6);
  const ConditionalFit fit = fit_ekde(train.x, train.y);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.cross_validation->candidates.rows(), 400);
  test::expect_integrates_to_one(fit.model, train.y, {-5.0, -3.0, -1.2, 0.4, 2.5, 40.0});
}

TEST(EpsilonKdeTest, ModelFileRoundTripIsBitIdentical) {
  const test::PairSample train = test::sine_sample(80, 2, 8);
  EkdeOptions options;
  options.epsilon = {0.3, 1.0};
  options.sigma = {0.2, 0.4};
  const ConditionalFit fit = fit_ekde(train.x, train.y, options);
  const test::PairSample queries = test::sine_sample(50, 2, 9);
  const ConditionalMixture loaded =
      test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
  EXPECT_EQ(dynamic_cast<const EpsilonBallGate&>(loaded.gate()).epsilon(),
            fit.report.hyperparameters.at("epsilon"));
  EXPECT_EQ(dynamic_cast<const EpsilonBallGate&>(loaded.gate()).centers_x(),
            dynamic_cast<const EpsilonBallGate&>(fit.model.gate()).centers_x());
}

TEST(EpsilonKdeTest, CorruptedGatesInModelFilesAreModelFormatErrors) {
  const test::PairSample train = test::sine_sample(10, 1, 12);
  const ConditionalFit fit = fit_ekde(train.x, train.y, single(0.5, 0.3));
  const nlohmann::json good = conditional_model_to_json({fit.model, {"x"}, {"y"}, fit.report, {}});
  EXPECT_NO_THROW(conditional_model_from_json(good));
  const auto corrupted = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json document = good;
    change(document["model"]["gate"]);
    return test::message_of<ModelFormatError>([&] { conditional_model_from_json(document); });
  };
  EXPECT_NE(corrupted([](nlohmann::json& gate) { gate["epsilon"] = -1.0; }).find("epsilon"),
            std::string::npos);
  EXPECT_NE(corrupted([](nlohmann::json& gate) { gate["epsilon"] = "wide"; }).find("epsilon"),
            std::string::npos);
  EXPECT_NE(corrupted([](nlohmann::json& gate) { gate.erase("centers_x"); }).find("centers_x"),
            std::string::npos);
  EXPECT_NE(corrupted([](nlohmann::json& gate) { gate["kind"] = "gaussian_kernel"; }).find("sigma"),
            std::string::npos);
  // Centres for another number of components than the mixture has.
  EXPECT_FALSE(corrupted([](nlohmann::json& gate) {
                 gate["centers_x"]["cols"] = 5;
                 gate["centers_x"]["data"] = std::vector<double>(5, 0.0);
               }).empty());
}

TEST(EpsilonKdeTest, ResultDoesNotDependOnThreadCount) {
  const test::PairSample train = test::sine_sample(600, 2, 10);
  test::expect_independent_of_thread_count([&](const FitContext& context) {
    return fit_ekde(train.x, train.y, EkdeOptions{}, context);
  });
}

TEST(EpsilonKdeTest, RejectsBadInputAndOptions) {
  const test::PairSample data = test::sine_sample(20, 2, 11);
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_ekde(x, y); });
  EkdeOptions options;
  options.epsilon = {0.1, -1.0};
  EXPECT_NE(
      test::message_of<InvalidArgument>([&] { fit_ekde(data.x, data.y, options); }).find("epsilon"),
      std::string::npos);
  options = {};
  options.epsilon = {};
  EXPECT_THROW(fit_ekde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.sigma = {0.0};
  EXPECT_NE(
      test::message_of<InvalidArgument>([&] { fit_ekde(data.x, data.y, options); }).find("sigma"),
      std::string::npos);
  options = {};
  options.sigma = {std::nan("")};
  EXPECT_THROW(fit_ekde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.folds = 1;
  EXPECT_THROW(fit_ekde(data.x, data.y, options), InvalidArgument);
  options = {};
  options.folds = 21;
  EXPECT_NE(
      test::message_of<InvalidArgument>([&] { fit_ekde(data.x, data.y, options); }).find("folds"),
      std::string::npos);
  EXPECT_THROW(fit_ekde(data.x, data.y, EkdeOptions{}, FitContext{}.with_threads(-1)),
               InvalidArgument);
  EXPECT_THROW(EpsilonBallGate(Matrix::Zero(2, 3), 0.0), InvalidArgument);
  EXPECT_THROW(EpsilonBallGate(Matrix(2, 0), 1.0), InvalidArgument);
}

}  // namespace
}  // namespace cdens

// The product-kernel CDE with per-dimension bandwidths (docs/methods/kcde.md) against brute
// force: the leave-one-out criterion against explicit leave-one-out sums, its gradient against
// central differences, the fitted density against the kernel ratio written out in the user's
// units, a density whose truth is known, a model-file round trip, thread counts and bad options.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/marginal_mixing.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "core/bandwidth_search.hpp"
#include "support.hpp"

namespace cdens {
namespace {

Matrix random_samples(Index k, Index n, std::uint64_t seed) {
  Rng rng(seed);
  return test::normal_matrix(k, n, rng);
}

TEST(BandwidthLikelihoodTest, MatchesExplicitLeaveOneOut) {
  const Matrix z = random_samples(4, 60, 1);
  const Vector h = (Vector(4) << 0.3, 0.8, 0.5, 1.7).finished();
  for (Index c : {0, 1, 3}) {
    const BandwidthLikelihood likelihood(z, c, {}, 1);
    const Vector terms = likelihood.negative_log_likelihoods(h.array().log().matrix());
    const Vector expected = test::explicit_leave_one_out(z, c, ColumnKernels(4), h);
    for (Index i = 0; i < z.cols(); ++i) {
      EXPECT_NEAR(terms(i), expected(i), 1e-10 * std::max(1.0, std::abs(expected(i))))
          << "c = " << c << ", sample " << i;
    }
    EXPECT_NEAR(likelihood.mean_negative_log_likelihood(h.array().log().matrix()), expected.mean(),
                1e-10);
  }
}

TEST(BandwidthLikelihoodTest, MatchesExplicitLeaveOneOutOnTiedSamples) {
  // Integer-coded columns (issue 50): samples on a lattice of 3 × 2 × 4 nodes, 90 of them, so
  // every sample has tied twins in x and most in (x, y) too; bandwidths down to the search's
  // lower bound, where a twin's kernel value is 1 and every other one underflows.
  Matrix z(3, 90);
  for (Index i = 0; i < 90; ++i) {
    z.col(i) << static_cast<double>(i % 3), static_cast<double>((i / 3) % 2),
        static_cast<double>((i * 7) % 4);
  }
  for (const double width : {1e-3, 0.05, 0.7}) {
    const Vector h = Vector::Constant(3, width);
    for (Index c : {0, 2}) {
      const Vector terms =
          BandwidthLikelihood(z, c, {}, 2).negative_log_likelihoods(h.array().log().matrix());
      const Vector expected = test::explicit_leave_one_out(z, c, ColumnKernels(3), h);
      for (Index i = 0; i < z.cols(); ++i) {
        EXPECT_NEAR(terms(i), expected(i), 1e-10 * std::max(1.0, std::abs(expected(i))))
            << "width " << width << ", c = " << c << ", sample " << i;
      }
    }
  }
}

TEST(BandwidthLikelihoodTest, HeldOutSubsetGivesTheTermsOfItsSamples) {
  const Matrix z = random_samples(3, 40, 2);
  const Vector log_h = Vector::Constant(3, std::log(0.6));
  const Vector all = BandwidthLikelihood(z, 2, {}, 1).negative_log_likelihoods(log_h);
  const std::vector<Index> chosen = {3, 17, 39, 0};
  const Vector some = BandwidthLikelihood(z, 2, chosen, 1).negative_log_likelihoods(log_h);
  for (std::size_t r = 0; r < chosen.size(); ++r) {
    EXPECT_DOUBLE_EQ(some(static_cast<Index>(r)), all(chosen[r]));
  }
}

TEST(BandwidthLikelihoodTest, IsolatedSampleStaysFinite) {
  // Sample 0 lies 10⁴ bandwidths from the rest: every kernel value underflows in linear space
  // (statsmodels gets 0/0 there); in log space its term is its nearest neighbours' likelihood.
  Matrix z = random_samples(2, 30, 3);
  z.col(0) << 500.0, 500.0;
  const Vector h = Vector::Constant(2, 0.05);
  const Vector terms =
      BandwidthLikelihood(z, 1, {}, 1).negative_log_likelihoods(h.array().log().matrix());
  EXPECT_TRUE(terms.allFinite());
  // Sample 0's nearest neighbour in x is also its nearest in (x, y) far out, so its term is
  // about the output kernel at that neighbour: check it against the log-space formula.
  Index nearest = 1;
  for (Index j = 2; j < z.cols(); ++j) {
    if (std::abs(z(0, j) - 500.0) < std::abs(z(0, nearest) - 500.0)) nearest = j;
  }
  const double dy = (z(1, 0) - z(1, nearest)) / h(1);
  EXPECT_NEAR(terms(0), 0.5 * dy * dy + std::log(std::sqrt(2 * M_PI) * h(1)),
              1e-6 * std::abs(terms(0)));
  // The same sample held out alone (the path that predicts held-out samples one by one).
  const Vector alone =
      BandwidthLikelihood(z, 1, {0, 4}, 1).negative_log_likelihoods(h.array().log().matrix());
  EXPECT_NEAR(alone(0), terms(0), 1e-12 * std::abs(terms(0)));
  EXPECT_NEAR(alone(1), terms(4), 1e-12 * std::abs(terms(4)));
}

TEST(BandwidthLikelihoodTest, GradientMatchesCentralDifferences) {
  const Matrix z = random_samples(4, 80, 4);
  const Vector log_h = (Vector(4) << -0.9, 0.2, -0.4, 0.6).finished();
  for (Index c : {0, 2}) {
    const BandwidthLikelihood likelihood(z, c, {}, 2);
    Vector gradient;
    likelihood.mean_negative_log_likelihood(log_h, &gradient);
    const Vector differences = test::central_differences(
        [&](const Vector& at) { return likelihood.mean_negative_log_likelihood(at); }, log_h, 1e-5);
    for (Index d = 0; d < 4; ++d) {
      EXPECT_NEAR(gradient(d), differences(d), 1e-7) << "c = " << c << ", dimension " << d;
    }
  }
}

TEST(BandwidthLikelihoodTest, RefusesBadArguments) {
  const Matrix z = random_samples(2, 10, 5);
  EXPECT_THROW(BandwidthLikelihood(z.leftCols(1), 1, {}, 1), InvalidArgument);
  EXPECT_THROW(BandwidthLikelihood(z, 2, {}, 1), InvalidArgument);
  EXPECT_THROW(BandwidthLikelihood(z, 1, {10}, 1), InvalidArgument);
  const BandwidthLikelihood likelihood(z, 1, {}, 1);
  EXPECT_THROW(likelihood.negative_log_likelihoods(Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(likelihood.negative_log_likelihoods(Vector::Constant(2, NAN)), InvalidArgument);
}

/// The leave-one-out criterion of p(y|x) on 200 standardised pairs of sine_sample.
BandwidthLikelihood sine_criterion() {
  const test::PairSample data = test::sine_sample(200, 1, 6);
  Matrix z(2, 200);
  z << Standardizer::fit(data.x, "x").transform(data.x),
      Standardizer::fit(data.y, "y").transform(data.y);
  return BandwidthLikelihood(z, 1, {}, 1);
}

TEST(BandwidthSearchTest, FindsTheMinimumOfTheCriterion) {
  // At the optimum the gradient vanishes in every dimension inside the box, and no point of a
  // coarse grid around it is better.
  const BandwidthLikelihood likelihood = sine_criterion();
  const BandwidthSearchResult found = maximize_bandwidth_likelihood(likelihood, likelihood);
  const Vector log_h = found.bandwidths.array().log().matrix();
  Vector gradient;
  EXPECT_NEAR(likelihood.mean_negative_log_likelihood(log_h, &gradient),
              found.mean_negative_log_likelihood, 1e-12);
  EXPECT_LT(gradient.norm(), 1e-4);
  for (double a : {-0.2, 0.0, 0.2}) {
    for (double b : {-0.2, 0.0, 0.2}) {
      const Vector shifted = log_h + Vector((Vector(2) << a, b).finished());
      EXPECT_GE(likelihood.mean_negative_log_likelihood(shifted),
                found.mean_negative_log_likelihood - 1e-12);
    }
  }
  EXPECT_EQ(found.starts, 3);
}

TEST(BandwidthSearchTest, AWarmStartIsOneRunToTheSameMinimum) {
  // From a point 0.3 away in every log bandwidth, one L-BFGS run on the criterion ends at the
  // minimum of the search from three starts: the same criterion within its relative tolerance
  // (10⁻⁵), in fewer evaluations.
  const BandwidthLikelihood likelihood = sine_criterion();
  const BandwidthSearchResult cold = maximize_bandwidth_likelihood(likelihood, likelihood);
  EXPECT_TRUE(cold.parameters.isApprox(likelihood.parameters_of(cold.bandwidths), 1e-12));
  const Vector start = cold.parameters + Vector::Constant(2, 0.3);
  const BandwidthSearchResult warm =
      maximize_bandwidth_likelihood(likelihood, likelihood, {}, Vector(), silent_progress(), start);
  EXPECT_EQ(warm.starts, 1);
  EXPECT_NEAR(warm.mean_negative_log_likelihood, cold.mean_negative_log_likelihood,
              1e-5 * std::abs(cold.mean_negative_log_likelihood));
  EXPECT_LT(warm.evaluations, cold.evaluations);
  EXPECT_THROW(maximize_bandwidth_likelihood(likelihood, likelihood, {}, Vector(),
                                             silent_progress(), Vector::Zero(3)),
               InvalidArgument);
}

TEST(KcdeTest, AWarmStartFromAnOverlappingFitEndsWhereTheFitFromScratchEnds) {
  // auto's later folds start at the search ends of its first fold's fit (FitContext::warm_start).
  // A fit on 300 pairs started at those of a fit on 240 of them reaches the leave-one-out NLL of
  // the fit from scratch (within 10⁻⁴ nats: both searches stop at relative changes of 10⁻⁵) with
  // a third of its evaluations, and names the searches it ran in its search ends.
  const test::PairSample data = test::sine_sample(300, 1, 17);
  const ConditionalFit cold = fit_kcde(data.x, data.y, {});
  ASSERT_EQ(cold.report.search_ends.count("bandwidths"), 1U);
  const test::PairSample part{data.x.leftCols(240), data.y.leftCols(240)};
  const ConditionalFit earlier = fit_kcde(part.x, part.y, {});
  FitContext context;
  context.warm_start = &earlier.report.search_ends;
  const ConditionalFit warm = fit_kcde(data.x, data.y, {}, context);
  EXPECT_NEAR(warm.report.statistics.at("loo_nll"), cold.report.statistics.at("loo_nll"), 1e-4);
  EXPECT_EQ(warm.report.statistics.at("starts"), 1.0);
  EXPECT_LT(warm.report.statistics.at("evaluations"),
            cold.report.statistics.at("evaluations") / 3.0);
  // The ends of a fit on other columns (a fold of auto whose constant input was dropped) are of
  // another size: the fit searches from scratch, as without them.
  const std::map<std::string, Vector> other_columns{{"bandwidths", Vector::Zero(3)}};
  context.warm_start = &other_columns;
  EXPECT_EQ(fit_kcde(data.x, data.y, {}, context).report.statistics.at("loo_nll"),
            cold.report.statistics.at("loo_nll"));
}

/// Fixed bandwidths, without the marginal mixing (test_marginal_mixing.cpp tests it).
KcdeOptions fixed(std::vector<double> bandwidths) {
  KcdeOptions options;
  options.bandwidth = std::move(bandwidths);
  options.marginal_mixing = MarginalMixing::none;
  return options;
}

TEST(ProductKernelCdeTest, LogPdfIsTheKernelRatioInUserUnits) {
  const test::PairSample train = test::sine_sample(40, 2, 7);
  const ConditionalFit fit = fit_kcde(train.x, train.y, fixed({0.3, 1.5, 0.2}));
  EXPECT_EQ(fit.model.gate().kind(), "product_kernel");
  EXPECT_EQ(fit.model.n_components(), 40);
  const Vector sx = test::sample_scale(train.x);
  const double sy = test::sample_scale(train.y)(0);
  const test::PairSample queries = test::sine_sample(15, 2, 8);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < 15; ++j) {
    double numerator = 0.0, denominator = 0.0;
    for (Index i = 0; i < 40; ++i) {
      const double u0 = (queries.x(0, j) - train.x(0, i)) / (sx(0) * 0.3);
      const double u1 = (queries.x(1, j) - train.x(1, i)) / (sx(1) * 1.5);
      const double weight = std::exp(-0.5 * (u0 * u0 + u1 * u1));
      numerator += weight * test::gaussian_density(queries.y.col(j), train.y.col(i), 0.2 * sy);
      denominator += weight;
    }
    EXPECT_NEAR(log_density(j), std::log(numerator / denominator), 1e-9) << "query " << j;
  }
  test::expect_integrates_to_one(fit_kcde(train.x.topRows(1), train.y, fixed({0.3, 0.2})).model,
                                 train.y, {-4.0, -3.0, 0.5});
}

TEST(ProductKernelCdeTest, ReportsTheCriterionOfTheChosenBandwidthsInUserUnits) {
  const test::PairSample train = test::sine_sample(120, 2, 9);
  KcdeOptions options;
  options.marginal_mixing = MarginalMixing::none;
  const ConditionalFit fit = fit_kcde(train.x, train.y, options);
  Vector h(3);
  h << fit.report.hyperparameters.at("bandwidth_x0"), fit.report.hyperparameters.at("bandwidth_x1"),
      fit.report.hyperparameters.at("bandwidth_y0");
  // The reported leave-one-out NLL is that of explicit refits without each pair, scored with
  // the whole sample's standardisation, as the criterion is.
  Matrix z(3, 120);
  z << Standardizer::fit(train.x, "x").transform(train.x),
      Standardizer::fit(train.y, "y").transform(train.y);
  const double expected = test::explicit_leave_one_out(z, 2, ColumnKernels(3), h).mean() +
                          std::log(test::sample_scale(train.y)(0));
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), expected, 1e-9);
  EXPECT_EQ(fit.report.statistics.at("held_out"), 120.0);
}

TEST(ProductKernelCdeTest, LearnsWhichInputMattersAndApproachesTheTrueDensity) {
  // y = sin(2 x_0) + 0.3 ε in the user's units scaled by 0.25 (test::sine_sample); x_1 is
  // irrelevant. The true conditional NLL is log(0.25 · 0.3 √(2πe)) = −1.1713. With n = 1,500
  // the kernel estimate's excess NLL on 4,000 fresh pairs is a few hundredths (its bias and
  // variance at this n); the standard error of a 4,000-point mean NLL is about 0.012.
  const test::PairSample train = test::sine_sample(1500, 2, 10);
  const ConditionalFit fit = fit_kcde(train.x, train.y);
  // The irrelevant input gets a bandwidth more than ten times the relevant one's (on this sample
  // its criterion is within 0.002 of the value at h → ∞); the relevant one is resolved finely.
  EXPECT_GT(fit.report.hyperparameters.at("bandwidth_x1"),
            10 * fit.report.hyperparameters.at("bandwidth_x0"));
  EXPECT_LT(fit.report.hyperparameters.at("bandwidth_x0"), 0.3);
  const test::PairSample test_pairs = test::sine_sample(4000, 2, 11);
  const double nll = -fit.model.log_pdf(test_pairs.x, test_pairs.y).mean();
  const double truth = std::log(0.25 * 0.3 * std::sqrt(2 * M_PI * M_E));
  EXPECT_GT(nll, truth - 0.04);
  EXPECT_LT(nll, truth + 0.08);
}

TEST(ProductKernelCdeTest, SameModelOnAnyThreadCountAndThroughAModelFile) {
  const test::PairSample train = test::sine_sample(90, 2, 12);
  KcdeOptions options;
  options.search.seed = 3;
  test::expect_independent_of_thread_count(
      [&](const FitContext& context) { return fit_kcde(train.x, train.y, options, context); });
  const ConditionalFit fit = fit_kcde(train.x, train.y, options);
  const test::PairSample queries = test::sine_sample(20, 2, 13);
  test::expect_model_file_round_trip(fit.model, fit.report, queries.x, queries.y);
}

TEST(ProductKernelCdeTest, HeldOutSubsetIsUsedBeyondItsLimit) {
  const test::PairSample train = test::sine_sample(300, 1, 14);
  KcdeOptions options;
  options.exact_limit = 299;
  options.subsample_held_out = 100;
  const ConditionalFit fit = fit_kcde(train.x, train.y, options);
  EXPECT_EQ(fit.report.statistics.at("held_out"), 100.0);
  EXPECT_EQ(fit.model.n_components(), 300);
  // The held-out log-densities are those of the 100 pairs, whose mean is the criterion.
  const HeldOutLogDensities& held_out = *fit.report.held_out;
  ASSERT_EQ(held_out.pairs.size(), 100u);
  EXPECT_TRUE(std::is_sorted(held_out.pairs.begin(), held_out.pairs.end()));
  EXPECT_LT(held_out.pairs.back(), 300);
  EXPECT_NEAR(-held_out.log_densities.mean(), fit.report.statistics.at("loo_nll"), 1e-12);
  // Each is the leave-one-out density of its pair, from all 299 others.
  Vector h(2);
  h << fit.report.hyperparameters.at("bandwidth_x0"), fit.report.hyperparameters.at("bandwidth_y0");
  Matrix z(2, 300);
  z << Standardizer::fit(train.x, "x").transform(train.x),
      Standardizer::fit(train.y, "y").transform(train.y);
  const Vector log_conditional = -test::explicit_leave_one_out(z, 1, ColumnKernels(2), h);
  const Vector log_marginal =
      -test::explicit_leave_one_out(z.bottomRows(1), 0, ColumnKernels(1), h.tail(1));
  const Vector mixed = mixed_log_densities(log_conditional, log_marginal,
                                           fit.report.hyperparameters.at("marginal_weight"));
  const double log_sy = std::log(test::sample_scale(train.y)(0));
  for (std::size_t k = 0; k < held_out.pairs.size(); ++k) {
    EXPECT_NEAR(held_out.log_densities(Index(k)), mixed(held_out.pairs[k]) - log_sy, 1e-9);
  }
}

TEST(ProductKernelCdeTest, ScreenedStartsArePolishedOnTheFullCriterion) {
  // Starts screened on 40 held-out pairs end, after a polish to a tight tolerance, at a
  // stationary point of the criterion over all 250 pairs; with the default tolerance (10⁻⁵
  // relative), at a criterion within 10⁻⁵ nats of it.
  const test::PairSample train = test::sine_sample(250, 2, 16);
  KcdeOptions options;
  options.screening_held_out = 40;
  options.marginal_mixing = MarginalMixing::none;
  const double default_criterion =
      fit_kcde(train.x, train.y, options).report.statistics.at("loo_nll");
  options.search.relative_tolerance = 1e-10;
  const ConditionalFit fit = fit_kcde(train.x, train.y, options);
  EXPECT_NEAR(default_criterion, fit.report.statistics.at("loo_nll"), 1e-5);
  Matrix z(3, 250);
  z << Standardizer::fit(train.x, "x").transform(train.x),
      Standardizer::fit(train.y, "y").transform(train.y);
  Vector log_h(3);
  log_h << std::log(fit.report.hyperparameters.at("bandwidth_x0")),
      std::log(fit.report.hyperparameters.at("bandwidth_x1")),
      std::log(fit.report.hyperparameters.at("bandwidth_y0"));
  Vector gradient;
  const double value =
      BandwidthLikelihood(z, 2, {}, 1).mean_negative_log_likelihood(log_h, &gradient);
  EXPECT_NEAR(value + std::log(test::sample_scale(train.y)(0)), fit.report.statistics.at("loo_nll"),
              1e-12);
  for (Index d = 0; d < 3; ++d) {
    const bool at_upper = log_h(d) >= std::log(options.search.upper) - 1e-9;
    if (!at_upper) {
      EXPECT_LT(std::abs(gradient(d)), 1e-4) << "dimension " << d;
    }
  }
}

TEST(ProductKernelCdeTest, RefusesBadOptionsAndData) {
  const test::PairSample train = test::sine_sample(30, 2, 15);
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_kcde(train.x, train.y, fixed({0.5, 0.5}));
            }).find("bandwidths: 2 values given, the data have 3"),
            std::string::npos);
  EXPECT_THROW(fit_kcde(train.x, train.y, fixed({0.5, -1.0, 0.5})), InvalidArgument);
  KcdeOptions box;
  box.search.lower = 2.0;
  box.search.upper = 1.0;
  EXPECT_THROW(fit_kcde(train.x, train.y, box), InvalidArgument);
  test::expect_rejects_bad_training_pairs(
      [](const Matrix& x, const Matrix& y) { return fit_kcde(x, y); });
}

}  // namespace
}  // namespace cdens

// Tests of density/gskd.hpp: the kernel RWBS places at a stage is the global minimiser of the LOO
// criterion (checked against an exhaustive grid), the fitted GSKD is a small mixture close to a
// known density, and the result does not depend on the thread count.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/gskd.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/samples.hpp"
#include "density/fixed_kernels.hpp"
#include "density/gskd_construction.hpp"
#include "density/gskd_holdout.hpp"
#include "density/mnqp.hpp"
#include "density/ofr.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// n draws of 0.5 N(−1.5, 0.4²) + 0.5 N(1, 0.8²).
Matrix two_bumps(Index n, Rng& rng) {
  Matrix x(1, n);
  for (Index j = 0; j < n; ++j) {
    x(0, j) = rng.uniform() < 0.5 ? -1.5 + 0.4 * rng.normal() : 1.0 + 0.8 * rng.normal();
  }
  return x;
}

/// A hold-out fit small enough for brute force: three folds, two bounds, a short RWBS.
GskdOptions small_holdout_options() {
  GskdOptions options;
  options.standardize = false;
  options.target_bandwidth = 0.4;
  options.folds = 3;
  options.variance_upper_grid = {0.5, 2.0};
  options.population = 6;
  options.generations = 3;
  options.iterations = 20;
  return options;
}

TEST(Gskd, HoldoutTableIsTheMeanHeldOutIseOfTheConstructionsOnTheOtherFolds) {
  Rng rng(29);
  const Matrix x = two_bumps(60, rng);
  const GskdOptions options = small_holdout_options();
  const DensityFit fit = fit_gskd(x, options);
  const CvTable& table = *fit.report.cross_validation;
  // Brute force for stage counts 1–3 (no fold's construction can end by patience before stage
  // patience + 2): the folds of stream 999, the construction of each bound on the other folds,
  // its MNQP mixture scored by held_out_ise on the fold.
  Rng fold_rng(options.seed, 999);
  const KFold folds(x.cols(), options.folds, fold_rng);
  RwbsOptions rwbs = gskd_paper_rwbs(1);
  rwbs.population = 6;
  rwbs.generations = 3;
  rwbs.iterations = 20;
  for (const double bound : options.variance_upper_grid) {
    Vector mean = Vector::Zero(3);
    for (int k = 0; k < folds.n_folds(); ++k) {
      const Matrix training = gather_samples(x, folds.train(k));
      GskdConstruction construction(training, parzen_at_samples(training, 0.4),
                                    gskd_box(training, 0.4, 1.0, bound), rwbs, 1e-6, 1);
      double score = 0.0;
      bool stopped = false;  // by eq. (38): the fold keeps its last score
      for (Index stages = 1; stages <= 3; ++stages) {
        stopped = stopped || !construction.add_stage().added;
        if (!stopped) {
          const MnqpResult weights =
              gskd_weights(training, construction.target(), construction.kernels(), options.mnqp);
          score =
              held_out_ise(gskd_mixture(Standardizer::identity(1), construction.kernels(), weights),
                           gather_samples(x, folds.test(k)));
        }
        mean(stages - 1) += score / folds.n_folds();
      }
    }
    for (Index stages = 1; stages <= 3; ++stages) {
      Index row = -1;
      for (Index r = 0; r < table.candidates.rows(); ++r) {
        if (table.candidates(r, 0) == bound && table.candidates(r, 1) == stages) row = r;
      }
      ASSERT_GE(row, 0);
      EXPECT_NEAR(table.mean_loss(row), mean(stages - 1), 1e-12 * std::abs(mean(stages - 1)))
          << "bound " << bound << ", " << stages << " stages";
    }
  }
}

TEST(Gskd, HoldoutTakesTheFewestStagesWithinOneErrorOrTheMinimum) {
  Rng rng(23);
  const Matrix x = two_bumps(120, rng);
  GskdOptions options;
  options.folds = 3;
  for (const auto rule : {GskdStageRule::one_standard_error, GskdStageRule::minimum}) {
    options.stage_rule = rule;
    const DensityFit fit = fit_gskd(x, options);
    ASSERT_TRUE(fit.report.cross_validation.has_value());
    const CvTable& table = *fit.report.cross_validation;
    Index best = 0;
    table.mean_loss.minCoeff(&best);
    EXPECT_EQ(table.best, best);
    const double bound = table.candidates(best, 0);
    double stages = table.candidates(best, 1);
    if (rule == GskdStageRule::one_standard_error) {
      for (Index r = 0; r < table.candidates.rows(); ++r) {
        if (table.candidates(r, 0) == bound &&
            table.mean_loss(r) <= table.mean_loss(best) + table.standard_error(best)) {
          stages = std::min(stages, table.candidates(r, 1));
        }
      }
    }
    EXPECT_EQ(fit.report.hyperparameters.at("stages"), stages);
    EXPECT_EQ(fit.report.hyperparameters.at("variance_upper"), bound);
    EXPECT_LE(fit.report.statistics.at("n_selected"), stages);
    // Every candidate bound has its rows.
    for (const double candidate : options.variance_upper_grid) {
      EXPECT_GT((table.candidates.col(0).array() == candidate).count(), 0);
    }
  }
  // The paper's rule has no table and ignores the grid.
  options.stopping = GskdStopping::paper;
  const DensityFit paper = fit_gskd(x, options);
  EXPECT_FALSE(paper.report.cross_validation.has_value());
  EXPECT_EQ(paper.report.hyperparameters.at("variance_upper"), options.variance_upper);
}

void expect_same_table(const CvTable& a, const CvTable& b) {
  ASSERT_EQ(a.candidates.rows(), b.candidates.rows());
  EXPECT_TRUE(a.candidates == b.candidates);
  EXPECT_TRUE(a.mean_loss == b.mean_loss);
  EXPECT_TRUE(a.standard_error == b.standard_error);
  EXPECT_EQ(a.best, b.best);
}

void expect_same_mixture(const DensityFit& a, const DensityFit& b) {
  EXPECT_TRUE(a.model.weights() == b.model.weights());
  EXPECT_TRUE(a.model.centers() == b.model.centers());
  EXPECT_TRUE(a.model.scales() == b.model.scales());
}

TEST(Gskd, HoldoutAboveTheLimitRunsOnTheSubsampleAndTheFinalConstructionOnAllSamples) {
  Rng rng(31);
  const Matrix x = two_bumps(150, rng);
  GskdOptions options = small_holdout_options();
  options.seed = 5;
  options.holdout_subsample = 45;
  const DensityFit fit = fit_gskd(x, options);
  EXPECT_EQ(fit.report.statistics.at("holdout_samples"), 45.0);
  EXPECT_EQ(fit.report.statistics.at("n_train"), 150.0);
  // The subsample by its documented rule: the first 45 of a permutation of stream 2^61 of the
  // seed, in ascending order.
  Rng subsample_rng(options.seed, std::uint64_t{1} << 61);
  std::vector<Index> subsample = subsample_rng.permutation(150);
  subsample.resize(45);
  std::sort(subsample.begin(), subsample.end());
  // Its hold-out table is exactly that of the whole method run on those 45 samples alone (its
  // folds, constructions and scores are on the subsample only)...
  GskdOptions every_sample = options;
  every_sample.holdout_subsample = 0;
  const DensityFit on_subsample = fit_gskd(gather_samples(x, subsample), every_sample);
  expect_same_table(*fit.report.cross_validation, *on_subsample.report.cross_validation);
  // ... and not that of the hold-out on all 150 (the test would pass vacuously otherwise).
  const DensityFit full = fit_gskd(x, every_sample);
  EXPECT_EQ(full.report.statistics.at("holdout_samples"), 150.0);
  EXPECT_FALSE(full.report.cross_validation->mean_loss.size() ==
                   fit.report.cross_validation->mean_loss.size() &&
               full.report.cross_validation->mean_loss == fit.report.cross_validation->mean_loss);
  // The final construction is on all 150 samples: the (bound, stages) the table chose, built as
  // eq. (38) stopping builds it with that bound and max_kernels = stages.
  GskdOptions final_only = options;
  final_only.stopping = GskdStopping::paper;
  final_only.variance_upper = fit.report.hyperparameters.at("variance_upper");
  final_only.max_kernels = static_cast<Index>(fit.report.hyperparameters.at("stages"));
  expect_same_mixture(fit, fit_gskd(x, final_only));
}

TEST(Gskd, HoldoutUpToTheLimitIsTheHoldoutOnEverySample) {
  Rng rng(37);
  const Matrix x = two_bumps(60, rng);
  GskdOptions options = small_holdout_options();
  options.seed = 5;
  options.holdout_subsample = 0;
  const DensityFit every_sample = fit_gskd(x, options);
  for (const Index limit : {Index{60}, Index{2000}}) {  // N = limit, N below it
    options.holdout_subsample = limit;
    const DensityFit fit = fit_gskd(x, options);
    EXPECT_EQ(fit.report.statistics.at("holdout_samples"), 60.0);
    expect_same_table(*fit.report.cross_validation, *every_sample.report.cross_validation);
    expect_same_mixture(fit, every_sample);
  }
  EXPECT_TRUE(gskd_holdout_subsample(60, 60, 5).empty());
  EXPECT_TRUE(gskd_holdout_subsample(61, 0, 5).empty());
  const std::vector<Index> drawn = gskd_holdout_subsample(61, 60, 5);
  ASSERT_EQ(drawn.size(), 60U);
  EXPECT_TRUE(std::is_sorted(drawn.begin(), drawn.end()));
  EXPECT_TRUE(std::adjacent_find(drawn.begin(), drawn.end()) == drawn.end());
  EXPECT_GE(drawn.front(), 0);
  EXPECT_LT(drawn.back(), 61);
  // The limit needs two samples per fold (0 stands for every sample); negative is refused.
  options.holdout_subsample = 5;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options.holdout_subsample = -1;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options.holdout_subsample = 6;
  EXPECT_NO_THROW(fit_gskd(x, options));
}

TEST(Gskd, FirstKernelIsTheGlobalMinimiserOfTheLooCriterion) {
  Rng rng(21);
  const Matrix x = two_bumps(60, rng);
  GskdOptions options;
  options.standardize = false;
  options.target_bandwidth = 0.4;
  options.max_kernels = 1;
  options.stopping = GskdStopping::paper;  // the box [γ²_Parz, s²] searched below
  const DensityFit fit = fit_gskd(x, options);
  ASSERT_EQ(fit.model.n_components(), 1);
  const double found = fit.report.statistics.at("loo_mse");

  // Exhaustive search of J_1 over the box: c in [min x, max x], γ² in [γ²_Parz, s²] (the
  // defaults), 200 × 200 points.
  const OfrLoo empty(parzen_at_samples(x, 0.4), options.regularization);
  const double low = x.minCoeff(), high = x.maxCoeff();
  const double mean = x.mean();
  const double variance = (x.array() - mean).square().sum() / 59.0;
  double grid_best = INFINITY;
  for (int a = 0; a < 200; ++a) {
    const double center = low + (high - low) * a / 199.0;
    for (int b = 0; b < 200; ++b) {
      const double gamma2 = 0.16 + (variance - 0.16) * b / 199.0;
      const Vector column =
          ((x.row(0).array() - center).square() / (-2.0 * gamma2)).exp().transpose() /
          std::sqrt(2.0 * kPi * gamma2);
      grid_best = std::min(grid_best, empty.evaluate(column).loo_mse);
    }
  }
  // RWBS converges to within a fraction of a percent of the box width (test_rwbs), the grid
  // spacing is 0.5 % of it: the two minima agree to 1 %, and RWBS is not beaten by more.
  EXPECT_LE(found, grid_best * 1.01);
  EXPECT_GE(found, grid_best * 0.95);
}

TEST(Gskd, FitsASmallMixtureCloseToTheTrueDensity) {
  Rng rng(4);
  const Matrix x = two_bumps(400, rng);
  const DensityFit fit = fit_gskd(x);
  EXPECT_EQ(fit.report.method, "gskd");
  const Index kernels = fit.model.n_components();
  EXPECT_GE(kernels, 2);
  EXPECT_LE(kernels, 30);  // sparse: under a tenth of the 400 points
  EXPECT_LE(kernels, static_cast<Index>(fit.report.statistics.at("n_selected")));
  EXPECT_NEAR(fit.model.weights().sum(), 1.0, 1e-9);
  // §III-C: at most N_G (P_S + 2 M_I) − (N_G − 1) evaluations in each of the n_selected + 1
  // stages run (the last is refused by eq. 38); fewer where a WBS loop stops early.
  const double stages = fit.report.statistics.at("n_selected") + 1.0;
  EXPECT_LE(fit.report.statistics.at("cost_evaluations"), stages * (10 * (10 + 400) - 9));
  EXPECT_GT(fit.report.statistics.at("cost_evaluations"), stages * 10 * 10);
  // L1 test error against the truth on 2,000 fresh points. A Parzen window at N = 400 has
  // L1 ≈ 0.02 for this density; 0.04 allows a sparse estimate twice that.
  const Matrix test_points = two_bumps(2000, rng);
  Vector truth(2000);
  for (Index k = 0; k < 2000; ++k) {
    const double a = (test_points(0, k) + 1.5) / 0.4, b = (test_points(0, k) - 1.0) / 0.8;
    truth(k) = 0.5 * std::exp(-0.5 * a * a) / (std::sqrt(2 * kPi) * 0.4) +
               0.5 * std::exp(-0.5 * b * b) / (std::sqrt(2 * kPi) * 0.8);
  }
  EXPECT_LT(l1_test_error(fit.model, test_points, truth), 0.04);
}

TEST(Gskd, ResultDoesNotDependOnTheThreadCount) {
  // 1,100 samples × 20 members is above the size at which a batch is spread over threads.
  Rng rng(6);
  const Matrix x = test::normal_matrix(2, 1100, rng);
  GskdOptions options;
  options.target_bandwidth = 0.3;
  options.generations = 2;
  options.iterations = 10;
  options.max_kernels = 3;
  const DensityFit serial = fit_gskd(x, options, FitContext{}.with_threads(1));
  const DensityFit parallel = fit_gskd(x, options, FitContext{}.with_threads(3));
  EXPECT_TRUE(serial.model.weights() == parallel.model.weights());
  EXPECT_TRUE(serial.model.centers() == parallel.model.centers());
  EXPECT_TRUE(serial.model.scales() == parallel.model.scales());
  options.seed = 1;
  EXPECT_FALSE(fit_gskd(x, options).model.centers() == serial.model.centers());
}

TEST(Gskd, PaperRwbsSettingsAndBadInput) {
  EXPECT_EQ(gskd_paper_rwbs(1).population, 10);
  EXPECT_EQ(gskd_paper_rwbs(2).population, 20);
  EXPECT_EQ(gskd_paper_rwbs(6).population, 40);
  EXPECT_EQ(gskd_paper_rwbs(6).iterations, 400);
  EXPECT_EQ(gskd_paper_rwbs(1).generations, 10);
  Rng rng(2);
  const Matrix x = test::normal_matrix(1, 20, rng);
  GskdOptions options;
  options.variance_lower = 0.0;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options = {};
  options.population = -1;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options = {};
  options.regularization = -1.0;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options = {};
  options.variance_upper_grid = {};
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options.variance_upper_grid = {1.0, -2.0};
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options = {};
  options.folds = 1;
  EXPECT_THROW(fit_gskd(x, options), InvalidArgument);
  options = {};
  options.folds = 15;  // 20 samples: fewer than 2 per fold
  EXPECT_THROW(fit_gskd(x, options), DataError);
  Matrix with_inf = x;
  with_inf(0, 2) = INFINITY;
  EXPECT_THROW(fit_gskd(with_inf, {}), DataError);
  EXPECT_THROW(fit_gskd(Matrix::Ones(1, 10), {}), DataError);
}

}  // namespace
}  // namespace cdens

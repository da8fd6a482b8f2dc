// The one-dimensional queries of mixtures of many components — CDF, quantiles, highest-density
// regions and probabilities, CRPS — answered from each input's components reduced within the
// query tolerance τ (src/model/component_reduction.hpp) against the same model at τ = 0 (every
// component, ties merged: the brute-force reference), for the shapes auto returns: KCDE on a tied
// output, around a line and the Gaussian-process trend, with a Yeo–Johnson transform, with an atom,
// and a pool of two. The bounds checked are the reduction's: every probability within τ (a
// region's exact probability within 2τ per interval, two CDF values, of its coverage), every
// quantile's exact CDF (below and at it) within τ of its probability, the CRPS and the means
// within τ times the components' span plus ten widths (the variances within its square); 1e−9
// more covers the rounding and the searches' own precision.
// Asked all at once (ConditionalMixture::scalar_answers, as an evaluation asks), the queries give
// the values they give one by one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cdens/cdens.hpp"
#include "conditional/pooled_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kTau = ConditionalMixture::kDefaultQueryTolerance;
constexpr double kSlack = 1e-9;

/// The 90 % highest-density regions of `model` at the inputs x, each region's probability under
/// the `exact` mixture, F(u) − F(l⁻) summed over its intervals (an atom's [a, a] holds its jump),
/// within 2τ per interval of 0.9 (τ the model's tolerance; 1e−9 more for the searches).
void expect_regions_hold_their_coverage(const ConditionalMixture& model,
                                        const ConditionalMixture& exact, const Matrix& x) {
  const std::vector<HighestDensityRegion> regions = model.highest_density_regions(x, 0.9);
  for (Index j = 0; j < x.cols(); ++j) {
    const auto& intervals = regions[static_cast<std::size_t>(j)].intervals;
    Matrix ends(1, 2 * static_cast<Index>(intervals.size()));
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      ends(0, 2 * static_cast<Index>(i)) = std::nextafter(intervals[i].lower, -INFINITY);
      ends(0, 2 * static_cast<Index>(i) + 1) = intervals[i].upper;
    }
    const Vector cdf = exact.cdf(x.col(j).replicate(1, ends.cols()), ends);
    double probability = 0.0;
    for (Index e = 0; e < cdf.size(); e += 2) probability += cdf(e + 1) - cdf(e);
    EXPECT_NEAR(probability, 0.9,
                2.0 * model.query_tolerance() * static_cast<double>(intervals.size()) + kSlack)
        << "row " << j;
  }
}

/// Every query asked at once (scalar_answers: one reduced distribution and one search grid per
/// input, which the regions of two coverages and the HPD value share) gives the values of the
/// queries asked one by one, to the bit.
void expect_answers_at_once_as_one_by_one(const ConditionalMixture& model, const Matrix& x,
                                          const Matrix& y) {
  ConditionalMixture::ScalarQueries queries;
  queries.quantile_probabilities = {0.05, 0.5, 0.95};
  queries.coverages = {0.5, 0.9};
  queries.cdf = queries.crps = queries.highest_density_probability = true;
  const ConditionalMixture::ScalarAnswers answers = model.scalar_answers(x, y, queries);
  EXPECT_TRUE(answers.quantiles == model.quantiles(x, queries.quantile_probabilities));
  EXPECT_TRUE(answers.cdf == model.cdf(x, y));
  EXPECT_TRUE(answers.crps == model.crps(x, y));
  EXPECT_TRUE(answers.highest_density_probability == model.highest_density_probability(x, y));
  for (std::size_t r = 0; r < queries.coverages.size(); ++r) {
    const auto one_by_one = model.highest_density_regions(x, queries.coverages[r]);
    for (std::size_t j = 0; j < one_by_one.size(); ++j) {
      const HighestDensityRegion& region = answers.regions[r][j];
      EXPECT_EQ(region.density_threshold, one_by_one[j].density_threshold) << "row " << j;
      ASSERT_EQ(region.intervals.size(), one_by_one[j].intervals.size()) << "row " << j;
      for (std::size_t i = 0; i < region.intervals.size(); ++i) {
        EXPECT_EQ(region.intervals[i].lower, one_by_one[j].intervals[i].lower) << "row " << j;
        EXPECT_EQ(region.intervals[i].upper, one_by_one[j].intervals[i].upper) << "row " << j;
      }
    }
  }
}

/// Every one-dimensional query of `model` (at its default tolerance) against the same model at
/// τ = 0, at the pairs (x, y); `span` is the range of the training outputs.
void expect_within_tolerance(const ConditionalMixture& model, const Matrix& x, const Matrix& y,
                             double span) {
  ASSERT_EQ(model.query_tolerance(), kTau);
  const ConditionalMixture exact = model.with_query_tolerance(0.0);
  const double cdf_difference = (model.cdf(x, y) - exact.cdf(x, y)).cwiseAbs().maxCoeff();
  EXPECT_LT(cdf_difference, kTau + kSlack);
  EXPECT_GT(cdf_difference, 0.0) << "the model answered unreduced";
  EXPECT_LT((model.highest_density_probability(x, y) - exact.highest_density_probability(x, y))
                .cwiseAbs()
                .maxCoeff(),
            2.0 * kTau + kSlack);
  const std::vector<double> probabilities{0.01, 0.1, 0.5, 0.9, 0.99};
  const Matrix quantiles = model.quantiles(x, probabilities);
  for (std::size_t r = 0; r < probabilities.size(); ++r) {
    // The generalised inverse: F(q⁻) ≤ p ≤ F(q) (an atom's jump holds many p), within τ.
    const Matrix at = quantiles.row(static_cast<Index>(r));
    const Matrix below = at.unaryExpr([](double q) { return std::nextafter(q, -INFINITY); });
    const Vector upper = exact.cdf(x, at);
    const Vector lower = exact.cdf(x, below);
    for (Index j = 0; j < x.cols(); ++j) {
      EXPECT_LE(lower(j) - kTau - kSlack, probabilities[r]) << "row " << j;
      EXPECT_GE(upper(j) + kTau + kSlack, probabilities[r]) << "row " << j;
    }
  }
  expect_regions_hold_their_coverage(model, exact, x);
  expect_regions_hold_their_coverage(exact, exact, x);
  EXPECT_LT((model.crps(x, y) - exact.crps(x, y)).cwiseAbs().maxCoeff(), kTau * span + kSlack);
  // Means and variances (from the reduced components where the components are not Gaussian in
  // y, as a transform's; by kernel sums, whatever τ, otherwise): within τ times the span, and its
  // square.
  const ConditionalMixture::OutputMoments moments = model.mean_and_covariance(x);
  const ConditionalMixture::OutputMoments exact_moments = exact.mean_and_covariance(x);
  EXPECT_LT((moments.means - exact_moments.means).cwiseAbs().maxCoeff(), kTau * span + kSlack);
  EXPECT_LT((moments.covariances - exact_moments.covariances).cwiseAbs().maxCoeff(),
            kTau * span * span + kSlack);
  expect_answers_at_once_as_one_by_one(model, x, y);
}

/// KCDE with fixed bandwidths on n pairs of the sine sample, every third y moved up by 0.8 (a
/// bimodal residual, which the Gaussian-process trend's broad component alone does not fit) and
/// rounded to 0.0005: ties, and more distinct components than a mixture answers unreduced.
ConditionalFit tied_kcde(Index n, KcdeOptions options) {
  test::PairSample train = test::sine_sample(n, 2, 31);
  for (Index i = 0; i < n; i += 3) train.y(0, i) += 0.8;
  train.y = (train.y.array() / 0.0005).round() * 0.0005;
  options.bandwidth = {0.3, 0.3, 0.1};
  options.trend_basis = 200;
  return fit_kcde(train.x, train.y, options);
}

double span_of(const test::PairSample& sample) {
  return sample.y.maxCoeff() - sample.y.minCoeff() + 1.0;  // and ten widths of 0.1
}

TEST(ReducedQueriesTest, KcdeOfATiedOutputAnswersWithinTheTolerance) {
  const ConditionalFit fit = tied_kcde(1500, {});
  const test::PairSample queries = test::sine_sample(60, 2, 32);
  expect_within_tolerance(fit.model, queries.x, queries.y, span_of(queries));
}

TEST(ReducedQueriesTest, KcdeAroundATrendAnswersWithinTheTolerance) {
  const test::PairSample queries = test::sine_sample(40, 2, 33);
  for (const KernelTrend trend : {KernelTrend::linear, KernelTrend::gaussian_process}) {
    KcdeOptions options;
    options.trend = trend;
    const ConditionalFit fit = tied_kcde(1200, options);
    SCOPED_TRACE(to_string(trend));
    expect_within_tolerance(fit.model, queries.x, queries.y, span_of(queries));
  }
}

TEST(ReducedQueriesTest, TransformedKcdeAnswersWithinTheTolerance) {
  KcdeOptions options;
  options.y_transform = OutputTransformChoice::yeo_johnson;
  const ConditionalFit fit = tied_kcde(1200, options);
  ASSERT_TRUE(fit.model.has_output_transform());
  const test::PairSample queries = test::sine_sample(40, 2, 34);
  expect_within_tolerance(fit.model, queries.x, queries.y, span_of(queries));
  EXPECT_TRUE((fit.model.mean(queries.x).array() !=
               fit.model.with_query_tolerance(0.0).mean(queries.x).array())
                  .any())
      << "the means were not taken from the reduced components";
  // Regions at more inputs: the grid in y of a transformed part once missed narrow modes (two of
  // these 200 regions were 4·10⁻⁴ and 3·10⁻³ short of their coverage).
  expect_regions_hold_their_coverage(fit.model, fit.model.with_query_tolerance(0.0),
                                     test::sine_sample(200, 2, 34).x);
}

TEST(ReducedQueriesTest, KcdeWithAnAtomAnswersWithinTheTolerance) {
  // An output that is 0 on about half of the rows, log-normal elsewhere.
  Rng rng(35);
  auto table = [&](Index rows, Matrix& x, Matrix& y) {
    x = test::normal_matrix(1, rows, rng);
    y.resize(1, rows);
    for (Index i = 0; i < rows; ++i) {
      const bool zero = rng.uniform() < 0.3 + 0.2 * std::tanh(x(0, i));
      y(0, i) = zero ? 0.0 : std::exp(0.5 * x(0, i) + 0.4 * rng.normal());
    }
  };
  Matrix x, y, query_x, query_y;
  table(1500, x, y);
  table(40, query_x, query_y);
  KcdeOptions options;
  options.bandwidth = {0.3, 0.1};
  const ConditionalFit fit = fit_kcde(x, y, options);
  ASSERT_TRUE(fit.model.atom().has_value());
  expect_within_tolerance(fit.model, query_x, query_y, y.maxCoeff() - y.minCoeff() + 1.0);
}

/// auto's pool at scale: KCDE plain and around the Gaussian-process trend, weights 0.4 and 0.6;
/// the second fitted on `trend_pairs` pairs, which below 1,200 standardise x and y otherwise than
/// the first's: its members keep their own standardisations (pooled_gate.hpp).
ConditionalMixture kcde_pool(Index trend_pairs = 1200) {
  const ConditionalFit plain = tied_kcde(1200, {});
  KcdeOptions options;
  options.trend = KernelTrend::gaussian_process;
  const ConditionalFit around_trend = tied_kcde(trend_pairs, options);
  return pool_mixtures({&plain.model, &around_trend.model}, (Vector(2) << 0.4, 0.6).finished());
}

TEST(ReducedQueriesTest, PoolOfKcdeModelsAnswersWithinTheTolerance) {
  const test::PairSample queries = test::sine_sample(40, 2, 36);
  for (const Index trend_pairs : {1200, 1000}) {
    SCOPED_TRACE(trend_pairs);
    const ConditionalMixture pool = kcde_pool(trend_pairs);
    ASSERT_EQ(pool.gate().pooled_members()[1].input_scaling.has_value(), trend_pairs != 1200);
    expect_within_tolerance(pool, queries.x, queries.y, span_of(queries));
  }
}

/// The Kolmogorov–Smirnov distance between `draws` (one row) and the CDF of `model` at x.
double ks_distance(const ConditionalMixture& model, const Matrix& x, Matrix draws) {
  std::sort(draws.data(), draws.data() + draws.size());
  const Vector cdf = model.cdf(x.replicate(1, draws.cols()), draws);
  double largest = 0.0;
  const auto n = static_cast<double>(draws.cols());
  for (Index i = 0; i < draws.cols(); ++i) {
    largest = std::max({largest, std::abs(cdf(i) - static_cast<double>(i) / n),
                        std::abs(cdf(i) - static_cast<double>(i + 1) / n)});
  }
  return largest;
}

TEST(ReducedQueriesTest, DrawsFromKernelNeighboursFollowTheMixture) {
  // 4,000 draws at each of two inputs from a KCDE (with marginal mixing) and from two pools,
  // against the exact CDF: the KS distance stays below its 1 % critical value 1.63/√4000 =
  // 0.0258 (the neighbour path's τ/4 in total variation adds at most 2.5·10⁻⁷).
  const ConditionalMixture plain = tied_kcde(1200, {}).model;
  const ConditionalMixture pool = kcde_pool();
  const ConditionalMixture pool_of_own_standardisations = kcde_pool(1000);
  const Matrix inputs = (Matrix(2, 2) << -1.5, 1.2, 0.7, 1.0).finished();
  for (const ConditionalMixture* model : {&plain, &pool, &pool_of_own_standardisations}) {
    const ConditionalMixture exact = model->with_query_tolerance(0.0);
    for (Index j = 0; j < inputs.cols(); ++j) {
      const Matrix draws = model->sample(inputs.col(j), 4000, 40 + static_cast<std::uint64_t>(j));
      EXPECT_LT(ks_distance(exact, inputs.col(j), draws), 1.63 / std::sqrt(4000.0)) << j;
    }
  }
}

TEST(ReducedQueriesTest, QueryToleranceIsChecked) {
  const ConditionalFit fit = tied_kcde(100, {});
  EXPECT_THROW(fit.model.with_query_tolerance(-1e-6), InvalidArgument);
  EXPECT_THROW(fit.model.with_query_tolerance(0.01), InvalidArgument);
  EXPECT_THROW(fit.model.with_query_tolerance(NAN), InvalidArgument);
  EXPECT_EQ(fit.model.with_query_tolerance(1e-8).query_tolerance(), 1e-8);
}

}  // namespace
}  // namespace cdens

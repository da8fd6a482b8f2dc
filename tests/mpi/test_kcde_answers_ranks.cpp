// The one-dimensional queries of a KCDE model whose rows stay on their ranks (quantiles, CDF,
// CRPS, highest-density regions and probabilities, squared norm, mean and variance, draws;
// kernel_queries_of_ranks.hpp): each rank holds a stretch of the model's kernels and asks at its
// own query inputs, against the brute-force answers of the whole model (query tolerance 0: every
// component).
//
// Tolerances, for the query tolerance τ = 1e−6. Each rank's part is within τ of its part of the
// model in every probability (its neighbours carry all of its kernel sum but τ/4, their reduction
// moves each probability by at most 3τ/4) and the parts are weighed by kernel sums within 1e−6/3
// relative each (a rank's share within 7e−7 of its own): CDF values, and the exact CDF at each
// quantile against its probability, within kProbabilityTolerance = 2e−6. A highest-density
// probability also moves with its density level (the reduced density within 0.69 τ/s of the
// exact one) and with the search's own tolerance, as on one process: within 1e−5. CRPS, mean and
// standard deviation are in y's units: within 1e−5 of the output's spread (the reduction keeps
// each bin's first two moments; what the neighbours leave out, τ/4 of the mass, carries at most
// about τ times a few spreads). The squared norm ∫ p² (the CDE loss's) within 1e−5 of itself: the
// reduced density is within 0.69 τ/s of the exact one, and the kernels' widths s are within a
// factor of a few of the density's spread. Draws: the exact CDF at each draw is uniform on (0, 1);
// with fixed seeds, the Kolmogorov–Smirnov distance of N of them from the uniform within 1.63/√N
// (its 1 % critical value). (The CDF checks are what see a mixture of the right parts under wrong
// weights: weighing each rank's kernels by 1/ranks moved the CDF by 0.03 on 3 ranks, while draws
// from it stayed within the critical distance.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "cdens/conditional/kcde.hpp"
#include "cdens/core/rng.hpp"
#include "conditional/kernel_queries_of_ranks.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::gaussian_process_yeo_johnson_kcde;
using testing_mpi::kernel_stretch;
using testing_mpi::rows_of_rank;
using testing_mpi::world;

constexpr double kProbabilityTolerance = 2e-6;
constexpr double kHighestDensityTolerance = 1e-5;
constexpr double kSpreadTolerance = 1e-5;
constexpr double kSquaredNormTolerance = 1e-5;
constexpr Index kDrawsPerInput = 10;

/// The largest |a_j − b_j|, over every rank.
double largest_difference(const Vector& a, const Vector& b) {
  double largest = a.size() > 0 ? (a - b).cwiseAbs().maxCoeff() : 0.0;
  world().allreduce_max(&largest, 1);
  return largest;
}

void print(const std::string& name, const std::string& what, double value) {
  if (world().rank() == 0) {
    std::cout << "[ ranks " << world().size() << " ] " << name << ": " << what << ' ' << value
              << std::endl;
  }
}

/// The Kolmogorov–Smirnov distance of `values` (in [0, 1]) from the uniform distribution.
double uniform_distance(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  double distance = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto rank = static_cast<double>(i);
    distance = std::max({distance, values[i] - rank / n, (rank + 1.0) / n - values[i]});
  }
  return distance;
}

/// Every answer of `whole` split into stretches of its n kernels (rank r's stretch
/// n·r/size … n·(r + 1)/size − 1, with marginal weight ε and broad weight δ), at this rank's share
/// of `queries` (none on rank 0 when there are others, past one chunk of broadcast queries on the
/// last rank), against the whole model's brute-force answers; CRPS and highest-density
/// probabilities at the first `exact_rows` of each rank's queries (their brute force walks every
/// pair of components).
void expect_answers_of_ranks(const ConditionalMixture& fitted, Index n, double marginal_weight,
                             double broad_weight, const test::PairSample& queries, Index exact_rows,
                             const std::string& name) {
  const int size = world().size();
  const int rank = world().rank();
  const Index first = n * rank / size;
  const ConditionalMixture own =
      kernel_stretch(fitted, first, n * (rank + 1) / size - first, marginal_weight, broad_weight);
  const ConditionalMixture exact =
      kernel_stretch(fitted, 0, n, marginal_weight, broad_weight).with_query_tolerance(0.0);
  const auto cut = [&](int r) {
    if (r == size) return queries.x.cols();
    return size == 1 || r == 0 ? Index{0} : queries.x.cols() * (r - 1) / (4 * size);
  };
  const std::vector<Index> own_queries = rows_of_rank(cut);
  const Matrix x = gather_samples(queries.x, own_queries);
  const Matrix y = gather_samples(queries.y, own_queries);
  const Index m = x.cols();
  const double spread = fitted.y_scaling().scale()(0);

  ConditionalMixture::ScalarQueries asked;
  asked.quantile_probabilities = {0.05, 0.5, 0.95};
  asked.cdf = true;
  const ConditionalMixture::ScalarAnswers answers =
      scalar_answers_of_ranks(own, x, y, asked, world());
  const double cdf = largest_difference(answers.cdf, exact.cdf(x, y));
  print(name, "largest difference of the CDF from brute force", cdf);
  EXPECT_LE(cdf, kProbabilityTolerance) << name;
  double quantile = 0.0;
  for (std::size_t r = 0; r < asked.quantile_probabilities.size(); ++r) {
    const Vector at = exact.cdf(x, answers.quantiles.row(static_cast<Index>(r)));
    quantile = std::max(
        quantile, largest_difference(at, Vector::Constant(m, asked.quantile_probabilities[r])));
  }
  print(name, "largest difference of the exact CDF at each quantile from its probability",
        quantile);
  EXPECT_LE(quantile, kProbabilityTolerance) << name;

  // The answers that walk every pair of components by brute force, at a few rows.
  const Index few = std::min(m, exact_rows);
  ConditionalMixture::ScalarQueries costly;
  costly.crps = true;
  costly.highest_density_probability = true;
  costly.coverages = {0.9};
  costly.squared_norm = true;
  const ConditionalMixture::ScalarAnswers costly_answers =
      scalar_answers_of_ranks(own, x.leftCols(few), y.leftCols(few), costly, world());
  const ConditionalMixture::ScalarAnswers costly_exact =
      exact.scalar_answers(x.leftCols(few), y.leftCols(few), costly);
  const double crps = largest_difference(costly_answers.crps, costly_exact.crps) / spread;
  print(name, "largest difference of the CRPS from brute force, over y's spread", crps);
  EXPECT_LE(crps, kSpreadTolerance) << name;
  const double density = largest_difference(costly_answers.highest_density_probability,
                                            costly_exact.highest_density_probability);
  print(name, "largest difference of the highest-density probability", density);
  EXPECT_LE(density, kHighestDensityTolerance) << name;
  const double norm = largest_difference(
      (costly_answers.squared_norm.array() / costly_exact.squared_norm.array() - 1.0).matrix(),
      Vector::Zero(few));
  print(name, "largest relative difference of the squared norm", norm);
  EXPECT_LE(norm, kSquaredNormTolerance) << name;
  // The region's exact probability: the CDF summed over its intervals.
  Vector coverage = Vector::Zero(few);
  for (Index j = 0; j < few; ++j) {
    for (const Interval& interval :
         costly_answers.regions.front()[static_cast<std::size_t>(j)].intervals) {
      const Matrix ends = (Matrix(1, 2) << interval.lower, interval.upper).finished();
      const Vector at = exact.cdf(x.col(j).replicate(1, 2), ends);
      coverage(j) += at(1) - at(0);
    }
  }
  const double region = largest_difference(coverage, Vector::Constant(few, 0.9));
  print(name, "largest difference of the 90 % region's exact probability from 0.9", region);
  EXPECT_LE(region, kHighestDensityTolerance) << name;

  const ConditionalMixture::OutputMoments moments = mean_and_variance_of_ranks(own, x, world());
  const ConditionalMixture::OutputMoments exact_moments = exact.mean_and_covariance(x);
  const double mean =
      largest_difference(moments.means.row(0).transpose(), exact_moments.means.row(0).transpose()) /
      spread;
  const double deviation =
      largest_difference(moments.covariances.row(0).transpose().cwiseSqrt(),
                         exact_moments.covariances.row(0).transpose().cwiseSqrt()) /
      spread;
  print(name, "largest difference of the mean, over y's spread", mean);
  print(name, "largest difference of the standard deviation, over y's spread", deviation);
  EXPECT_LE(mean, kSpreadTolerance) << name;
  EXPECT_LE(deviation, kSpreadTolerance) << name;

  const Matrix draws = sample_of_ranks(own, x, kDrawsPerInput, 17, world());
  ASSERT_EQ(draws.cols(), m * kDrawsPerInput);
  std::vector<double> uniforms;
  for (Index r = 0; r < kDrawsPerInput; ++r) {
    Matrix drawn(1, m);
    for (Index j = 0; j < m; ++j) drawn(0, j) = draws(0, j * kDrawsPerInput + r);
    const Vector at = exact.cdf(x, drawn);
    uniforms.insert(uniforms.end(), at.begin(), at.end());
  }
  if (!uniforms.empty()) {
    const double distance = uniform_distance(uniforms);
    EXPECT_LE(distance, 1.63 / std::sqrt(static_cast<double>(uniforms.size()))) << name;
    if (size > 1 && rank == size - 1) {
      std::cout << "[ ranks " << size << " ] " << name << ": Kolmogorov-Smirnov distance of "
                << uniforms.size() << " draws' exact CDF from the uniform " << distance
                << " (1 % critical value " << 1.63 / std::sqrt(static_cast<double>(uniforms.size()))
                << ")" << std::endl;
    }
  }
}

TEST(KcdeAnswersRanks, ContinuousInputsByKernelNeighbours) {
  // 2,400 pairs: at least 600 kernels a rank on up to 4 ranks, past the 512 distinct components
  // from which a mixture answers by its kernel neighbours. The line's residuals, marginal mixing,
  // and a query far from every pair.
  const test::PairSample pairs = test::sine_sample(2400, 2, 41);
  test::PairSample queries = test::sine_sample(4300, 2, 42);
  queries.x.col(4299) << 40.0, -30.0;
  queries.y(0, 4299) = 25.0;
  KcdeOptions options;
  options.bandwidth = {0.4, 0.7, 0.3};
  options.trend = KernelTrend::linear;
  const ConditionalMixture fitted = fit_kcde(pairs.x, pairs.y, options, FitContext{}).model;
  expect_answers_of_ranks(fitted, pairs.x.cols(), 0.2, 0.0, queries, 120,
                          "KCDE 2,400 pairs, linear trend, 4,300 queries");
}

TEST(KcdeAnswersRanks, TheBroadComponentAndAnOutputTransform) {
  // Around the Gaussian-process trend, on Yeo–Johnson's y: the answers in y by quadrature through
  // the transform, the broad component shared by every rank.
  test::PairSample pairs = test::sine_sample(150, 2, 35);
  pairs.y = pairs.y.array().exp().matrix();
  const ConditionalMixture fitted = gaussian_process_yeo_johnson_kcde(pairs);
  test::PairSample queries = test::sine_sample(300, 2, 36);
  queries.y = queries.y.array().exp().matrix();
  expect_answers_of_ranks(fitted, pairs.x.cols(), 0.2, 0.3, queries, 60,
                          "KCDE 150 pairs around the Gaussian-process trend, Yeo-Johnson y");
}

TEST(KcdeAnswersRanks, ACategoricalInput) {
  // No Gaussian kernel over the inputs: each rank reduces every one of its components.
  test::PairSample pairs = test::sine_sample(600, 2, 43);
  test::PairSample queries = test::sine_sample(400, 2, 44);
  Rng rng(6);
  for (test::PairSample* sample : {&pairs, &queries}) {
    for (Index i = 0; i < sample->x.cols(); ++i) {
      sample->x(1, i) = std::floor(4.0 * rng.uniform());
    }
  }
  KcdeOptions options;
  options.bandwidth = {0.5, 0.3, 0.4};
  options.discrete = {1};
  const ConditionalMixture fitted = fit_kcde(pairs.x, pairs.y, options, FitContext{}).model;
  expect_answers_of_ranks(fitted, pairs.x.cols(), 0.1, 0.0, queries, 60,
                          "KCDE 600 pairs, a categorical input");
}

}  // namespace
}  // namespace cdens

// Tests of the kernel-sum engine (kernel_sums/kernel_sums.hpp): every path against a brute-force
// sum in long double, with the tolerance each path states.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "conditional/kernel_gates.hpp"
#include "kernel_sums/binned_kernel_sums.hpp"
#include "kernel_sums/block_tree_kernel_sums.hpp"
#include "kernel_sums/exact_kernel_sums.hpp"
#include "kernel_sums/gauss_transform_kernel_sums.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "kernel_sums/regular_grid.hpp"
#include "parallel/parallel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// Points of a two-cluster mixture in d dimensions, divided by the kernel width h (the engine
/// works in units of the width), and queries spread a little wider.
struct Problem {
  Matrix points;
  Vector weights;
  Matrix queries;
};

Problem clustered_problem(Index d, Index n, Index m, double width, bool equal_weights,
                          std::uint64_t seed) {
  Rng rng(seed);
  Problem problem;
  problem.points = test::normal_matrix(d, n, rng);
  for (Index i = 0; i < n; i += 3)
    problem.points.col(i).array() = problem.points.col(i).array() * 0.3 + 2.0;
  problem.points /= width;
  problem.weights =
      equal_weights
          ? Vector::Constant(n, 1.0 / static_cast<double>(n))
          : Vector((test::normal_matrix(1, n, rng).transpose().array().abs() + 0.01).matrix());
  problem.queries = test::normal_matrix(d, m, rng) * 1.5 / width;
  return problem;
}

KernelSumOptions options_for(KernelSumPath path, double log_tolerance = 1e-6, int threads = 0) {
  KernelSumOptions options;
  options.path = path;
  options.log_tolerance = log_tolerance;
  options.threads = threads;
  return options;
}

/// Largest |Δ log S_j| of `path` against brute force.
double largest_error(const Problem& problem, const KernelSumOptions& options) {
  const KernelSums sums =
      gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries, options);
  EXPECT_EQ(sums.path, options.path);
  const Vector reference =
      test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
  EXPECT_TRUE(sums.log_sums.allFinite());
  return (sums.log_sums - reference).cwiseAbs().maxCoeff();
}

TEST(KernelSumsTest, ExactPathMatchesBruteForce) {
  for (Index d = 1; d <= 5; ++d) {
    for (const double width : {0.05, 0.3, 2.0}) {
      for (const bool equal : {true, false}) {
        SCOPED_TRACE(testing::Message() << "d=" << d << " width=" << width << " equal=" << equal);
        const Problem problem = clustered_problem(d, 600, 300, width, equal, 10 + d);
        // Rounding of the GEMM form of the exponents: a few ulps of ‖p̃‖² + ‖q̃‖².
        EXPECT_LT(largest_error(problem, options_for(KernelSumPath::exact)), 1e-9);
      }
    }
  }
}

TEST(KernelSumsTest, TreePathIsWithinItsToleranceOnEveryQuery) {
  for (Index d = 1; d <= 5; ++d) {
    for (const double width : {0.05, 0.3, 2.0}) {
      for (const double tolerance : {1e-9, 1e-6, 1e-3, 0.1}) {
        SCOPED_TRACE(testing::Message()
                     << "d=" << d << " width=" << width << " tolerance=" << tolerance);
        const Problem problem = clustered_problem(d, 700, 200, width, d % 2 == 0, 20 + d);
        // The bound plus the rounding of the exact path's sums.
        EXPECT_LE(largest_error(problem, options_for(KernelSumPath::tree, tolerance)),
                  tolerance + 1e-10);
      }
    }
  }
}

TEST(KernelSumsTest, DualTreeOfBlocksIsWithinItsToleranceOnEveryQuery) {
  // 256 queries or more: the tree path sums blocks of points against blocks of queries.
  for (Index d = 1; d <= 5; ++d) {
    for (const double width : {0.05, 0.3}) {
      for (const double tolerance : {1e-6, 1e-2}) {
        SCOPED_TRACE(testing::Message()
                     << "d=" << d << " width=" << width << " tolerance=" << tolerance);
        Problem problem = clustered_problem(d, 2000, 600, width, d % 2 == 1, 40 + d);
        // Two queries whose sums underflow, inside blocks of ordinary ones.
        problem.queries.col(5).setConstant(1e3);
        problem.queries.col(500).setConstant(-4e2);
        EXPECT_LE(largest_error(problem, options_for(KernelSumPath::tree, tolerance)),
                  tolerance + 1e-10);
      }
    }
  }
}

TEST(KernelSumsTest, ZeroToleranceTreeIsExact) {
  for (const Index m : {100, 400}) {  // a single tree and the dual tree of blocks
    const Problem problem = clustered_problem(2, 900, m, 0.2, true, 3);
    EXPECT_LT(largest_error(problem, options_for(KernelSumPath::tree, 0.0)), 1e-10);
  }
}

TEST(KernelSumsTest, QueriesFarFromEveryPointDoNotUnderflow) {
  for (Index d = 1; d <= 4; d += 3) {
    Problem problem = clustered_problem(d, 400, 6, 0.1, false, 5);
    // exp(−½ 40²) and exp(−½ 10⁴²) underflow: the sums must come from log space.
    problem.queries.col(0).setConstant(40.0 / std::sqrt(static_cast<double>(d)) + 30.0);
    problem.queries.col(1).setConstant(1e4);
    problem.queries.col(2).setConstant(-3e3);
    problem.queries(0, 3) = 1e6;
    for (const auto path : {KernelSumPath::exact, KernelSumPath::tree}) {
      SCOPED_TRACE(testing::Message() << "d=" << d << " path=" << to_string(path));
      // Far queries have log-sums around −5·10¹¹: compare relative to their size.
      const KernelSums sums = gaussian_kernel_log_sums(problem.points, problem.weights,
                                                       problem.queries, options_for(path));
      const Vector reference =
          test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
      ASSERT_TRUE(sums.log_sums.allFinite());
      for (Index j = 0; j < reference.size(); ++j) {
        EXPECT_NEAR(sums.log_sums(j), reference(j), 1e-6 + 1e-12 * std::abs(reference(j)));
      }
    }
  }
}

TEST(KernelSumsTest, OnePointAndDuplicatedPoints) {
  Rng rng(8);
  for (Index d = 1; d <= 3; ++d) {
    Problem single{test::normal_matrix(d, 1, rng), Vector::Constant(1, 2.5),
                   test::normal_matrix(d, 50, rng) * 3.0};
    Matrix repeated(d, 300);
    for (Index i = 0; i < 300; ++i) repeated.col(i) = single.points.col(0) * (i % 3);
    const Problem duplicated{repeated, Vector::Constant(300, 1.0), single.queries};
    for (const auto path : {KernelSumPath::exact, KernelSumPath::tree}) {
      SCOPED_TRACE(testing::Message() << "d=" << d << " path=" << to_string(path));
      EXPECT_LT(largest_error(single, options_for(path)), 1e-6 + 1e-10);
      EXPECT_LT(largest_error(duplicated, options_for(path)), 1e-6 + 1e-10);
    }
  }
}

TEST(KernelSumsTest, ZeroWeightsAreLeftOut) {
  Problem problem = clustered_problem(2, 200, 40, 0.3, false, 9);
  for (Index i = 0; i < 200; i += 2) problem.weights(i) = 0.0;
  for (const auto path : {KernelSumPath::exact, KernelSumPath::tree}) {
    EXPECT_LT(largest_error(problem, options_for(path)), 1e-6 + 1e-10);
  }
}

TEST(KernelSumsTest, ResultDoesNotDependOnThreads) {
  const Problem problem = clustered_problem(3, 900, 700, 0.3, true, 4);
  for (const auto path : {KernelSumPath::exact, KernelSumPath::tree}) {
    const Vector one = gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                                options_for(path, 1e-6, 1))
                           .log_sums;
    for (const int threads : {2, 3}) {
      EXPECT_EQ(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                         options_for(path, 1e-6, threads))
                    .log_sums,
                one);
    }
  }
}

/// Σ_i w_i f_ci K_ij / Σ_i w_i K_ij by brute force (each factor's weighted sum over the sum).
Matrix brute_force_kernel_means(const Problem& problem, const Matrix& factors) {
  const Vector log_total =
      test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
  Matrix means(factors.rows(), problem.queries.cols());
  for (Index c = 0; c < factors.rows(); ++c) {
    const Vector weights = problem.weights.cwiseProduct(factors.row(c).transpose());
    means.row(c) =
        (test::brute_force_log_kernel_sums(problem.points, weights, problem.queries) - log_total)
            .array()
            .exp()
            .transpose();
  }
  return means;
}

TEST(KernelSumsTest, KernelMeansOfFactorsAreWithinTheirBoundOnEveryPath) {
  // Factors a, a² and a zero one (the moments' shifted centres and their squares), some points of
  // zero weight, and two queries whose sums underflow: on the tree path (the dual tree of blocks,
  // one pass for every factor, also for fewer than 256 queries) and the exact path, every mean
  // within 2ε·max f of brute force (1e−10 more for the rounding), every log-sum within ε.
  for (const Index m : {100, 700}) {
    for (const double tolerance : {1e-9, 1e-3}) {
      for (const auto path : {KernelSumPath::tree, KernelSumPath::exact}) {
        SCOPED_TRACE(testing::Message()
                     << "m=" << m << " tolerance=" << tolerance << " path=" << to_string(path));
        Problem problem = clustered_problem(3, 3000, m, 0.3, false, 9);
        for (Index i = 0; i < 3000; i += 7) problem.weights(i) = 0.0;
        problem.queries.col(3).setConstant(1e3);
        problem.queries.col(50).setConstant(-40.0);
        Matrix factors(3, 3000);
        factors.row(0) = problem.points.row(0).array() - problem.points.row(0).minCoeff();
        factors.row(1) = factors.row(0).cwiseAbs2();
        factors.row(2).setZero();
        const KernelSumReference reference(problem.points, problem.weights);
        const KernelMeans result = gaussian_kernel_means(reference, factors, problem.queries,
                                                         options_for(path, tolerance));
        EXPECT_EQ(result.sums.path, path);
        const Vector exact_log_sums =
            test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
        EXPECT_LE((result.sums.log_sums - exact_log_sums).cwiseAbs().maxCoeff(), tolerance + 1e-10);
        const Matrix exact = brute_force_kernel_means(problem, factors);
        const double epsilon = -std::expm1(-tolerance);
        for (Index c = 0; c < factors.rows(); ++c) {
          const double bound = 2.0 * epsilon * factors.row(c).maxCoeff() + 1e-10;
          EXPECT_LE((result.means.row(c) - exact.row(c)).cwiseAbs().maxCoeff(), bound)
              << "factor " << c;
        }
      }
    }
  }
  const Problem problem = clustered_problem(2, 50, 5, 0.3, true, 1);
  const KernelSumReference reference(problem.points, problem.weights);
  EXPECT_THROW(gaussian_kernel_means(reference, Matrix::Ones(1, 49), problem.queries),
               InvalidArgument);
  EXPECT_THROW(gaussian_kernel_means(reference, -Matrix::Ones(1, 50), problem.queries),
               InvalidArgument);
}

TEST(KernelSumsTest, AReferenceKeptForLaterQueriesAnswersAsAFreshOne) {
  // A model's sums keep their reference and its trees (kernel_sum_reference.hpp): the second and
  // later queries search the trees the first built. Each answer is the fresh reference's, bit for
  // bit, on both tree paths (a single tree below 256 queries, the dual tree of blocks above),
  // and its copies share the trees.
  const Problem problem = clustered_problem(3, 3000, 700, 0.3, false, 6);
  const KernelSumReference kept(problem.points, problem.weights);
  for (const Index m : {100, 700, 100, 700}) {
    SCOPED_TRACE(testing::Message() << "m=" << m);
    const Matrix queries = problem.queries.leftCols(m);
    const Vector fresh = gaussian_kernel_log_sums(problem.points, problem.weights, queries,
                                                  options_for(KernelSumPath::tree))
                             .log_sums;
    EXPECT_EQ(gaussian_kernel_log_sums(kept, queries, options_for(KernelSumPath::tree)).log_sums,
              fresh);
  }
  const KernelSumReference copy = kept;
  EXPECT_EQ(&copy.tree(kKernelSumBlock), &kept.tree(kKernelSumBlock));
  EXPECT_NE(&kept.tree(kKernelSumBlock), &kept.tree(32));
}
TEST(KernelSumsTest, AutomaticChoiceIsWithinTolerance) {
  // Small: exact without measuring the tree; large enough: the tree is measured, and whichever
  // path wins is within the tolerance.
  const Problem small = clustered_problem(2, 50, 20, 0.3, true, 6);
  const KernelSums small_sums =
      gaussian_kernel_log_sums(small.points, small.weights, small.queries);
  EXPECT_EQ(small_sums.path, KernelSumPath::exact);
  const Problem large = clustered_problem(2, 6000, 6000, 0.05, true, 6);
  const KernelSums large_sums =
      gaussian_kernel_log_sums(large.points, large.weights, large.queries);
  EXPECT_NE(large_sums.path, KernelSumPath::automatic);
  const Vector reference =
      test::brute_force_log_kernel_sums(large.points, large.weights, large.queries.leftCols(300));
  EXPECT_LE((large_sums.log_sums.head(300) - reference).cwiseAbs().maxCoeff(), 1e-6 + 1e-10);
}

TEST(KernelSumsTest, BinnedPathIsWithinItsToleranceOnEveryGridPoint) {
  struct Case {
    Index d;
    Index count;
    double tolerance;
    double width;
    double low;  // the grid spans [low, high] / width in every dimension
    double high;
  };
  // Cases whose binning grid fits the FFT budget: a tight tolerance needs fine cells, and in two
  // and three dimensions their number grows with the square and the cube.
  for (const Case& c : {Case{1, 200, 1e-6, 0.15, -2.5, 4.0}, Case{1, 200, 1e-6, 0.5, -2.5, 4.0},
                        Case{1, 64, 1e-3, 0.15, -2.5, 4.0}, Case{1, 64, 1e-3, 0.5, -2.5, 4.0},
                        Case{2, 30, 1e-3, 0.5, -2.5, 4.0}, Case{2, 17, 1e-2, 0.15, -2.5, 4.0},
                        Case{3, 7, 0.2, 0.5, -1.0, 2.0}}) {
    SCOPED_TRACE(testing::Message()
                 << "d=" << c.d << " width=" << c.width << " tolerance=" << c.tolerance);
    Problem problem = clustered_problem(c.d, 1500, 1, c.width, c.d == 2, 30 + c.d);
    // A grid over part of the data (points beyond it are binned too) and beyond it.
    problem.queries = test::grid_points(c.d, c.count, c.low / c.width, c.high / c.width);
    EXPECT_LE(largest_error(problem, options_for(KernelSumPath::binned, c.tolerance)),
              c.tolerance + 1e-10);
  }
}

TEST(KernelSumsTest, BinnedGridFarFromThePointsIsRecomputedExactly) {
  // Every grid point lies 30 to 60 widths from the data: the binned sums are lost in the FFT's
  // rounding, so each is recomputed, and the answer is still within the tolerance.
  for (Index d = 1; d <= 2; ++d) {
    const double tolerance = d == 1 ? 1e-3 : 1e-2;
    Problem problem = clustered_problem(d, 500, 1, 1.0, true, 7);
    problem.queries = test::grid_points(d, 12, 30.0, 45.0);
    EXPECT_LE(largest_error(problem, options_for(KernelSumPath::binned, tolerance)),
              tolerance + 1e-10);
  }
}

/// The binned path's own answer on `problem` (queries on a regular grid), with its fallback
/// counts, against the exact path (itself checked against brute force above): the largest
/// |Δ log S_j|.
double binned_error(const Problem& problem, double tolerance, BinnedFallbacks& fallbacks) {
  const KernelSumReference reference(problem.points, problem.weights);
  const Matrix centred = reference.centred(problem.queries);
  const std::optional<RegularGrid> grid = regular_grid_of(centred);
  EXPECT_TRUE(grid.has_value());
  const double relative = -std::expm1(-tolerance);  // the engine's relative tolerance
  const std::optional<BinnedPlan> plan =
      plan_binned_kernel_sums(reference, *grid, relative, 4194304.0);
  EXPECT_TRUE(plan.has_value());
  const Vector log_sums =
      binned_log_kernel_sums(reference, *grid, centred, *plan, relative, 2, &fallbacks);
  const Vector exact = exact_log_kernel_sums(reference, centred, 2);
  return (log_sums - exact).cwiseAbs().maxCoeff();
}

TEST(KernelSumsTest, BinnedTailsAreSummedDirectlyAndFarGridPointsExactly) {
  // The grid of the 1-D benchmark, smaller: 60,000 normal points at the normal-reference width,
  // a grid over their range. Where the sums are small the FFT's rounding exceeds 1e-6 of them,
  // and the direct sums over the kernel's reach answer them. 30 to 45 widths beyond the data
  // only the exact path can.
  Rng rng(8);
  const Index n = 60000;  // the direct sums cost less than the exact ones from 36,800 points
  const double width = 1.06 * std::pow(static_cast<double>(n), -0.2);
  Problem problem{test::normal_matrix(1, n, rng) / width,
                  Vector::Constant(n, 1.0 / static_cast<double>(n)), Matrix()};
  const double low = problem.points.minCoeff();
  const double high = problem.points.maxCoeff();
  problem.queries = Vector::LinSpaced(1024, low, high).transpose();
  BinnedFallbacks fallbacks;
  const double error = binned_error(problem, 1e-6, fallbacks);
  EXPECT_LE(error, 1e-6 + 1e-10);
  EXPECT_GT(fallbacks.direct, 0);
  problem.queries = Vector::LinSpaced(12, high + 30.0, high + 45.0).transpose();
  fallbacks = {};
  EXPECT_LE(binned_error(problem, 1e-3, fallbacks), 1e-3 + 1e-10);
  EXPECT_EQ(fallbacks.direct, 0);
  EXPECT_EQ(fallbacks.exact, 12);
}

TEST(KernelSumsTest, BinnedPathWithOnePointAndDuplicatedPoints) {
  const Matrix grid = test::grid_points(2, 25, -3.0, 3.0);
  const Problem single{(Matrix(2, 1) << 0.3, -0.2).finished(), Vector::Constant(1, 1.0), grid};
  EXPECT_LE(largest_error(single, options_for(KernelSumPath::binned, 1e-3)), 1e-3 + 1e-10);
  const Problem duplicated{single.points.replicate(1, 50), Vector::Constant(50, 0.02), grid};
  EXPECT_LE(largest_error(duplicated, options_for(KernelSumPath::binned, 1e-3)), 1e-3 + 1e-10);
}

TEST(KernelSumsTest, BinnedPathNeedsARegularGridAndAFeasibleFft) {
  Problem problem = clustered_problem(2, 300, 1, 0.3, true, 2);
  problem.queries = test::grid_points(2, 10, -3.0, 3.0);
  std::swap(problem.queries(0, 3), problem.queries(0, 4));  // no longer a grid
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                        options_for(KernelSumPath::binned, 1e-3)),
               InvalidArgument);
  // Points are not a grid: automatic falls back to an exact or tree path.
  EXPECT_NE(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries).path,
            KernelSumPath::binned);
  // d = 4 and a zero tolerance have no binned path.
  const Problem four = clustered_problem(4, 50, 1, 1.0, true, 2);
  EXPECT_THROW(
      gaussian_kernel_log_sums(four.points, four.weights, test::grid_points(4, 3, -1.0, 1.0),
                               options_for(KernelSumPath::binned, 1e-3)),
      InvalidArgument);
  problem.queries = test::grid_points(2, 10, -3.0, 3.0);
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                        options_for(KernelSumPath::binned, 0.0)),
               InvalidArgument);
}

TEST(KernelSumsTest, AutomaticChoiceBinsLargeSamplesOnAGrid) {
  // 1-D, 200,000 points on a 512-point grid: binning is far cheaper than n·m terms.
  Problem problem = clustered_problem(1, 200000, 1, 0.05, true, 5);
  problem.queries = test::grid_points(1, 512, -4.0 / 0.05, 4.0 / 0.05);
  const KernelSums sums = gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                                   options_for(KernelSumPath::automatic));
  EXPECT_EQ(sums.path, KernelSumPath::binned);
  const Vector reference = test::brute_force_log_kernel_sums(problem.points, problem.weights,
                                                             problem.queries.leftCols(64));
  EXPECT_LE((sums.log_sums.head(64) - reference).cwiseAbs().maxCoeff(), 1e-6 + 1e-10);
}

TEST(KernelSumsTest, BadArgumentsAreRefused) {
  const Problem problem = clustered_problem(2, 10, 5, 1.0, true, 2);
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, Vector::Zero(10), problem.queries),
               InvalidArgument);
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, -problem.weights, problem.queries),
               InvalidArgument);
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, problem.weights.head(4), problem.queries),
               InvalidArgument);
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, problem.weights, Matrix::Zero(3, 4)),
               InvalidArgument);
  KernelSumOptions options;
  options.log_tolerance = -1.0;
  EXPECT_THROW(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries, options),
               InvalidArgument);
}

TEST(KernelSumsTest, ParzenShapedMixtureUsesTheEngineAndMatchesItsFormula) {
  // Equal widths in every component (per dimension): log_pdf goes through the engine. The
  // density in the user's units is eq. (10) of Chen, Hong & Harris written out.
  Rng rng(12);
  const Index d = 2;
  const Index n = 3000;
  const Matrix z = test::normal_matrix(d, n, rng);
  Vector mean(d);
  mean << 1.0, -2.0;
  Vector scale(d);
  scale << 2.0, 0.5;
  const Vector gamma = (Vector(d) << 0.2, 0.3).finished();
  const GaussianMixture mixture(Standardizer(mean, scale),
                                Vector::Constant(n, 1.0 / static_cast<double>(n)), z,
                                gamma.replicate(1, n));
  const Matrix x = (scale.asDiagonal() * (test::normal_matrix(d, 400, rng) * 1.3)).colwise() + mean;
  const Vector log_densities = mixture.log_pdf(x);
  const Matrix z_query = scale.cwiseInverse().asDiagonal() * (x.colwise() - mean);
  const Vector inverse_gamma = gamma.cwiseInverse();
  const Vector expected = test::brute_force_log_kernel_sums(inverse_gamma.asDiagonal() * z,
                                                            Vector::Constant(n, 1.0 / n),
                                                            inverse_gamma.asDiagonal() * z_query)
                              .array() -
                          gamma.array().log().sum() - 0.5 * d * std::log(2.0 * M_PI) -
                          scale.array().log().sum();
  EXPECT_LE((log_densities - expected).cwiseAbs().maxCoeff(), 1e-6 + 1e-10);
  // The engine's points, prepared by the first query, serve the next ones and the copies; two
  // threads querying a fresh copy at once both get the same answer.
  EXPECT_EQ(mixture.log_pdf(x), log_densities);
  const GaussianMixture fresh(Standardizer(mean, scale),
                              Vector::Constant(n, 1.0 / static_cast<double>(n)), z,
                              gamma.replicate(1, n));
  std::vector<Vector> concurrent(2);
  parallel_for(2, 2, [&](Index t) {
    concurrent[static_cast<std::size_t>(t)] = GaussianMixture(fresh).log_pdf(x);
  });
  EXPECT_EQ(concurrent[0], log_densities);
  EXPECT_EQ(concurrent[1], log_densities);
}

}  // namespace
}  // namespace cdens

namespace cdens {
namespace {

TEST(KernelSumsTest, AnOutlierPointOrAFarQueryLeavesTheSumsExact) {
  // One point 10¹³ widths away moves the points' mean there: the GEMM form's exponents
  // (‖p̃‖² + ‖q̃‖² − 2 p̃ᵀq̃ at 10²⁵) would lose every digit and could overflow. Found by the
  // model-file fuzzer (a NW-CDE gate centre mutated to −2.8·10¹³ gave a NaN log-density).
  Rng rng(23);
  Matrix points = test::normal_matrix(2, 40, rng);
  points(0, 7) = -2.8e13;
  const Vector weights = Vector::Constant(40, 1.0 / 40.0);
  Matrix queries = test::normal_matrix(2, 30, rng);
  queries(1, 29) = 3e13;  // far from every point
  const Vector exact = test::brute_force_log_kernel_sums(points, weights, queries);
  for (const KernelSumPath path :
       {KernelSumPath::exact, KernelSumPath::tree, KernelSumPath::automatic}) {
    SCOPED_TRACE(to_string(path));
    const Vector sums =
        gaussian_kernel_log_sums(points, weights, queries, options_for(path)).log_sums;
    ASSERT_TRUE(sums.allFinite());
    EXPECT_LE(((sums - exact).array() / exact.array().abs().max(1.0)).abs().maxCoeff(), 1e-6);
  }
}

TEST(KernelSumsTest, GaussianKernelConditionalMixtureMatchesItsFormula) {
  // RKDE's and NW-CDE's shape, p(t|z) = Σ_k e^{−‖z−u_k‖²/2σ²} N(t; v_k, s² I) / Σ_k
  // e^{−‖z−u_k‖²/2σ²}, whose log_pdf goes through the engine (two sums, joint and input), against
  // the formula written out with brute-force sums, in the user's units.
  Rng rng(21);
  const Index n = 2000;
  const Index m = 600;
  const Matrix u = test::normal_matrix(2, n, rng);
  const Matrix v = (u.row(0).array().sin() + 0.3 * test::normal_matrix(1, n, rng).array()).matrix();
  const Standardizer x_scaling((Vector(2) << 1.0, -1.0).finished(),
                               (Vector(2) << 2.0, 0.5).finished());
  const Standardizer y_scaling(Vector::Constant(1, 3.0), Vector::Constant(1, 4.0));
  const double sigma = 0.2;
  const ConditionalMixture mixture = make_output_kernel_mixture(
      x_scaling, y_scaling, std::make_shared<const GaussianKernelGate>(u, sigma), v, sigma);
  const Matrix z = test::normal_matrix(2, m, rng) * 1.3;
  const Matrix t = test::normal_matrix(1, m, rng);
  const Matrix x = x_scaling.inverse_transform(z);
  const Matrix y = y_scaling.inverse_transform(t);
  const Vector ones = Vector::Ones(n);
  Matrix joint_points(3, n);
  joint_points << u / sigma, v / sigma;
  Matrix joint_queries(3, m);
  joint_queries << z / sigma, t / sigma;
  const Vector expected = (test::brute_force_log_kernel_sums(joint_points, ones, joint_queries) -
                           test::brute_force_log_kernel_sums(u / sigma, ones, z / sigma))
                              .array() -
                          std::log(sigma) - 0.5 * std::log(2.0 * M_PI) - std::log(4.0);
  EXPECT_LE((mixture.log_pdf(x, y) - expected).cwiseAbs().maxCoeff(), 1e-6 + 1e-10);
}

}  // namespace
}  // namespace cdens

namespace cdens {
namespace {

// The fast Gauss transform path (kernel_sums/gauss_transform_kernel_sums.hpp).

/// Points and queries of `problem` prepared as the engine prepares them.
struct Prepared {
  KernelSumReference reference;
  Matrix centred;
};

Prepared prepared(const Problem& problem) {
  KernelSumReference reference(problem.points, problem.weights);
  Matrix centred = reference.centred(problem.queries);
  return {std::move(reference), std::move(centred)};
}

/// Points of a standard normal in d dimensions, divided by the width (no clusters).
Problem normal_problem(Index d, Index n, Index m, double width, std::uint64_t seed) {
  Rng rng(seed);
  return {test::normal_matrix(d, n, rng) / width, Vector::Constant(n, 1.0),
          test::normal_matrix(d, m, rng) * 1.2 / width};
}

TEST(GaussTransformTest, MatchesBruteForceWithinTheTolerance) {
  for (Index d = 1; d <= 3; ++d) {
    for (const double width : {0.03, 0.3}) {
      for (const double tolerance : {1e-6, 1e-3}) {
        SCOPED_TRACE(testing::Message()
                     << "d=" << d << " width=" << width << " tolerance=" << tolerance);
        Problem clustered = clustered_problem(d, 1500, 400, width, false, 30 + d);
        for (Index i = 0; i < clustered.weights.size(); i += 5) clustered.weights(i) = 0.0;
        const Problem normal = normal_problem(d, 1500, 400, width, 40 + d);
        // The log of a sum within relative ε is within −log(1 − ε) = τ; plus rounding.
        EXPECT_LE(largest_error(clustered, options_for(KernelSumPath::gauss_transform, tolerance)),
                  tolerance + 1e-10);
        EXPECT_LE(largest_error(normal, options_for(KernelSumPath::gauss_transform, tolerance)),
                  tolerance + 1e-10);
      }
    }
  }
}

TEST(GaussTransformTest, ItsBoundHoldsAtEveryQueryOfAnExpandedBox) {
  // The bound B of each box against the actual |Ŝ − S| (long-double brute force), at every query
  // the transform evaluated — also those it then handed on because B was too large; every box by
  // its series, then each by its series or its direct sum, whichever the plan finds cheaper.
  Index direct_boxes = 0;
  for (Index d = 1; d <= 3; ++d) {
    for (const double tolerance : {1e-2, 1e-6}) {
      for (const bool by_cost : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << "d=" << d << " tolerance=" << tolerance << " by_cost=" << by_cost);
        const Problem problem = clustered_problem(d, 2000, 500, 0.1, true, 50 + d);
        const Prepared sides = prepared(problem);
        const std::optional<GaussTransformPlan> plan = plan_gauss_transform(
            sides.reference, sides.centred, tolerance, GaussTransformCosts{}, by_cost);
        ASSERT_TRUE(plan.has_value());
        direct_boxes += std::count(plan->box_direct.begin(), plan->box_direct.end(), 1);
        std::vector<Index> recompute;
        GaussTransformValues values;
        gauss_transform_log_kernel_sums(*plan, sides.centred, tolerance, 2, &recompute, &values);
        const Vector exact =
            test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
        Index checked = 0;
        double closest = 0.0;  // the largest error / bound: how tight the bound is
        for (Index j = 0; j < problem.queries.cols(); ++j) {
          if (std::isnan(values.bounds(j))) continue;
          // The reference normalises the weights to sum to 1 (log W subtracted).
          const double truth = std::exp(exact(j) - sides.reference.log_total);
          const double error = std::abs(values.sums(j) - truth);
          EXPECT_LE(error, values.bounds(j)) << "query " << j;
          closest = std::max(closest, error / values.bounds(j));
          ++checked;
        }
        // Most queries lie in boxes the transform summed, and most of those kept its value.
        EXPECT_GE(checked, problem.queries.cols() / 2);
        EXPECT_LE(static_cast<Index>(recompute.size()), problem.queries.cols() / 2);
        std::cout << "d = " << d << ", tolerance " << tolerance << (by_cost ? ", by cost" : "")
                  << ": largest error / bound " << closest << ", " << recompute.size() << " of "
                  << problem.queries.cols() << " queries recomputed\n";
      }
    }
  }
  EXPECT_GT(direct_boxes, 0);
}

TEST(GaussTransformTest, BoxesOfOnePointAndOfTenThousand) {
  for (Index d = 1; d <= 3; ++d) {
    SCOPED_TRACE(testing::Message() << "d=" << d);
    // Width 0.002 of a standard normal (0.03 in 3-D, where 0.002 would need more boxes than the
    // grid allows): boxes of side ≤ 2 widths hold at most a point or two.
    const Problem sparse = normal_problem(d, 300, 300, d == 3 ? 0.03 : 0.002, 60 + d);
    EXPECT_LE(largest_error(sparse, options_for(KernelSumPath::gauss_transform)), 1e-6 + 1e-10);
    // Width 20: all 10⁴ points within a tenth of a width, in one box.
    const Problem dense = normal_problem(d, 10000, 200, 20.0, 70 + d);
    EXPECT_LE(largest_error(dense, options_for(KernelSumPath::gauss_transform)), 1e-6 + 1e-10);
  }
}

TEST(GaussTransformTest, QueriesFarFromEveryPointAreHandedOn) {
  for (Index d = 1; d <= 3; ++d) {
    Problem problem = clustered_problem(d, 800, 300, 0.1, false, 80 + d);
    // exp(−½ 40²) underflows; 10⁴ and 10⁶ widths lie far outside the grid.
    problem.queries.col(0).setConstant(40.0 / std::sqrt(static_cast<double>(d)) + 30.0);
    problem.queries.col(1).setConstant(1e4);
    problem.queries.col(2).setConstant(-3e3);
    problem.queries(0, 3) = 1e6;
    problem.queries.col(4).setConstant(25.0);  // beyond the points, inside the grid's margin
    const KernelSums sums =
        gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                 options_for(KernelSumPath::gauss_transform));
    const Vector reference =
        test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
    ASSERT_TRUE(sums.log_sums.allFinite());
    for (Index j = 0; j < reference.size(); ++j) {
      EXPECT_NEAR(sums.log_sums(j), reference(j), 1e-6 + 1e-12 * std::abs(reference(j)))
          << "d=" << d << " query " << j;
    }
  }
}

TEST(GaussTransformTest, ResultDoesNotDependOnThreads) {
  for (Index d = 1; d <= 3; ++d) {
    const Problem problem = clustered_problem(d, 3000, 2000, 0.05, false, 90 + d);
    for (const auto path : {KernelSumPath::gauss_transform, KernelSumPath::automatic}) {
      const Vector one = gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                                  options_for(path, 1e-6, 1))
                             .log_sums;
      EXPECT_EQ(gaussian_kernel_log_sums(problem.points, problem.weights, problem.queries,
                                         options_for(path, 1e-6, 2))
                    .log_sums,
                one);
    }
    // Boxes by series and boxes by direct sums, as the cost model splits them (the engine plans
    // the transform only above 20 ms of exact sums, more than this problem).
    const Prepared sides = prepared(problem);
    const std::optional<GaussTransformPlan> plan =
        plan_gauss_transform(sides.reference, sides.centred, 1e-6, GaussTransformCosts{}, true);
    ASSERT_TRUE(plan.has_value());
    std::vector<Index> one_left;
    std::vector<Index> two_left;
    const Vector one = gauss_transform_log_kernel_sums(*plan, sides.centred, 1e-6, 1, &one_left);
    const Vector two = gauss_transform_log_kernel_sums(*plan, sides.centred, 1e-6, 2, &two_left);
    EXPECT_EQ(one_left, two_left);
    for (Index j = 0; j < one.size(); ++j) {
      if (!std::isnan(one(j)) || !std::isnan(two(j))) {
        EXPECT_EQ(one(j), two(j)) << j;
      }
    }
  }
}

TEST(GaussTransformTest, TheEngineChoosesItWhereItIsCheaper) {
  // 1-D, 200,000 points (about 400 per kernel width near the mode) and 50,000 queries (about a
  // hundred per width): the tree sums thousands of points per query, a box's series costs tens
  // of nanoseconds per point and serves every query of the box. With few queries per box the
  // series would not pay; in 4-D the transform never applies.
  const Problem dense = normal_problem(1, 200000, 50000, 0.005, 100);
  const KernelSums sums = gaussian_kernel_log_sums(dense.points, dense.weights, dense.queries);
  EXPECT_EQ(sums.path, KernelSumPath::gauss_transform);
  const Vector reference =
      test::brute_force_log_kernel_sums(dense.points, dense.weights, dense.queries.leftCols(200));
  EXPECT_LE((sums.log_sums.head(200) - reference).cwiseAbs().maxCoeff(), 1e-6 + 1e-10);
  const Problem few = normal_problem(1, 200000, 5000, 0.005, 100);
  EXPECT_EQ(gaussian_kernel_log_sums(few.points, few.weights, few.queries).path,
            KernelSumPath::tree);
  const Problem four = normal_problem(4, 3000, 2000, 0.3, 101);
  EXPECT_NE(gaussian_kernel_log_sums(four.points, four.weights, four.queries).path,
            KernelSumPath::gauss_transform);
  EXPECT_THROW(gaussian_kernel_log_sums(four.points, four.weights, four.queries,
                                        options_for(KernelSumPath::gauss_transform)),
               InvalidArgument);
  EXPECT_EQ(to_string(KernelSumPath::gauss_transform), "gauss_transform");
}

}  // namespace
}  // namespace cdens

// The kernel-sum engine on tied data (issue 50): many equal points, every point equal, points on
// an integer lattice, queries exactly on data points and queries equal to one another, through
// every path (exact, the single tree, the dual tree of blocks, binned, Gauss transform), against
// the brute-force sums in long double. Tied points once made a k-d tree leaf of more than 256
// points, which overran the dual tree's GEMM block and corrupted the heap.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "kernel_sums/kd_tree.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "support.hpp"

namespace cdens {
namespace {

struct TiedProblem {
  std::string name;
  Matrix points;  // in units of the kernel width
  Vector weights;
  Matrix queries;
};

/// `n` points, most of them on `locations` integer points (each taken by many points), a tenth
/// spread around them; weights 1, 2, 3 in turn or all equal.
Matrix tied_points(Index d, Index n, Index locations, Rng& rng) {
  const Matrix centres = (test::normal_matrix(d, locations, rng) * 2.0).array().round().matrix();
  Matrix points(d, n);
  for (Index i = 0; i < n; ++i) {
    points.col(i) = centres.col(i % locations);
    if (i % 10 == 9) points.col(i) += test::normal_matrix(d, 1, rng);
  }
  return points;
}

/// 300 queries: 100 data points exactly, 100 copies of one data point, 100 drawn around the
/// data. The first 200 of them (fewer than a block) take the single tree, all 300 the dual tree.
Matrix tied_queries(const Matrix& points, Rng& rng) {
  const Index d = points.rows();
  Matrix queries(d, 300);
  for (Index j = 0; j < 100; ++j) queries.col(j) = points.col((j * 37) % points.cols());
  for (Index j = 100; j < 200; ++j) queries.col(j) = points.col(points.cols() / 2);
  queries.rightCols(100) = test::normal_matrix(d, 100, rng) * 2.0;
  return queries;
}

Vector weights_of(Index n, bool integer) {
  return integer ? test::integer_weights(n) : Vector::Constant(n, 1.0);
}

std::vector<TiedProblem> tied_problems(Index d) {
  Rng rng(static_cast<std::uint64_t>(50 + d));
  std::vector<TiedProblem> problems;
  for (const bool integer : {false, true}) {
    const std::string suffix = integer ? ", integer weights" : "";
    const Matrix many = tied_points(d, 1500, 4, rng);
    problems.push_back(
        {"many equal points" + suffix, many, weights_of(1500, integer), tied_queries(many, rng)});
    const Matrix equal = Matrix::Constant(d, 1000, 0.5);
    problems.push_back(
        {"every point equal" + suffix, equal, weights_of(1000, integer), tied_queries(equal, rng)});
  }
  return problems;
}

/// |Δ log S_j| of `path` against `reference` (the brute-force sums), at most.
double largest_error(const Matrix& points, const Vector& weights, const Matrix& queries,
                     const Vector& reference, KernelSumPath path, double log_tolerance) {
  KernelSumOptions options;
  options.path = path;
  options.log_tolerance = log_tolerance;
  options.threads = 2;
  const KernelSums sums = gaussian_kernel_log_sums(points, weights, queries, options);
  EXPECT_EQ(sums.path, path);
  EXPECT_TRUE(sums.log_sums.allFinite());
  return (sums.log_sums - reference.head(queries.cols())).cwiseAbs().maxCoeff();
}

TEST(KdTreeTest, EqualPointsStillMakeLeavesOfAtMostTheLeafSize) {
  // The crash's minimal case: 1,000 equal points, leaves of 256 at most.
  const Matrix points = Matrix::Constant(3, 1000, 1.5);
  const KdTree tree(points, Vector::Constant(1000, 2.0), 256);
  Index covered = 0;
  for (const KdTree::Node& node : tree.nodes()) {
    if (node.left >= 0) continue;
    EXPECT_LE(node.end - node.begin, 256);
    EXPECT_GE(node.end - node.begin, 128);
    EXPECT_DOUBLE_EQ(node.weight, 2.0 * static_cast<double>(node.end - node.begin));
    covered += node.end - node.begin;
  }
  EXPECT_EQ(covered, 1000);
  EXPECT_DOUBLE_EQ(tree.nodes().front().weight, 2000.0);
  std::vector<Index> order = tree.order();
  std::sort(order.begin(), order.end());
  for (Index k = 0; k < 1000; ++k) EXPECT_EQ(order[static_cast<std::size_t>(k)], k);
}

TEST(TiedKernelSumsTest, ExactAndTreePathsMatchBruteForce) {
  for (Index d : {1, 2, 3, 5}) {
    for (const TiedProblem& problem : tied_problems(d)) {
      SCOPED_TRACE(testing::Message() << "d=" << d << ", " << problem.name);
      const Vector reference =
          test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
      EXPECT_LT(largest_error(problem.points, problem.weights, problem.queries, reference,
                              KernelSumPath::exact, 1e-6),
                1e-10);
      // Fewer queries than a block: one tree per query; all 300: the dual tree of blocks.
      EXPECT_LT(largest_error(problem.points, problem.weights, problem.queries.leftCols(200),
                              reference, KernelSumPath::tree, 1e-6),
                1e-6 + 1e-10);
      EXPECT_LT(largest_error(problem.points, problem.weights, problem.queries, reference,
                              KernelSumPath::tree, 1e-6),
                1e-6 + 1e-10);
    }
  }
}

TEST(TiedKernelSumsTest, GaussTransformMatchesBruteForce) {
  for (Index d : {1, 2, 3}) {
    for (const TiedProblem& problem : tied_problems(d)) {
      SCOPED_TRACE(testing::Message() << "d=" << d << ", " << problem.name);
      const Vector reference =
          test::brute_force_log_kernel_sums(problem.points, problem.weights, problem.queries);
      EXPECT_LT(largest_error(problem.points, problem.weights, problem.queries, reference,
                              KernelSumPath::gauss_transform, 1e-6),
                1e-6 + 1e-10);
    }
  }
}

TEST(TiedKernelSumsTest, IntegerLatticeOnEveryPath) {
  // Integer-coded columns: points on the lattice {0, …, 4}^d (many on each node, spacing 1.5
  // widths), queries on the same lattice — each one exactly on data points — and on a regular
  // grid, which the binned path takes. Binned tolerances: the FFT's cells grow with d.
  const double binned_tolerance[] = {0.0, 1e-6, 1e-3, 0.2};
  for (Index d : {1, 2, 3}) {
    Rng rng(static_cast<std::uint64_t>(60 + d));
    Matrix points(d, 2000);
    for (Index i = 0; i < 2000; ++i) {
      for (Index k = 0; k < d; ++k) points(k, i) = 1.5 * std::floor(5.0 * rng.uniform());
    }
    const Vector weights = test::integer_weights(2000);
    const Matrix lattice = test::grid_points(d, 5, 0.0, 6.0);
    Matrix queries(d, 300);
    for (Index j = 0; j < 300; ++j) queries.col(j) = lattice.col(j % lattice.cols());
    SCOPED_TRACE(testing::Message() << "d=" << d);
    const Vector reference = test::brute_force_log_kernel_sums(points, weights, queries);
    for (const KernelSumPath path :
         {KernelSumPath::exact, KernelSumPath::tree, KernelSumPath::gauss_transform}) {
      EXPECT_LT(largest_error(points, weights, queries, reference, path, 1e-6), 1e-6 + 1e-10)
          << to_string(path);
    }
    const double tolerance = binned_tolerance[d];
    const Matrix grid = test::grid_points(d, d == 1 ? 61 : 13, -1.5, 7.5);
    EXPECT_LE(largest_error(points, weights, grid,
                            test::brute_force_log_kernel_sums(points, weights, grid),
                            KernelSumPath::binned, tolerance),
              tolerance + 1e-10);
    const Matrix equal = Matrix::Constant(d, 1000, 3.0);
    const Vector ones = Vector::Constant(1000, 1.0);
    EXPECT_LE(largest_error(equal, ones, grid, test::brute_force_log_kernel_sums(equal, ones, grid),
                            KernelSumPath::binned, tolerance),
              tolerance + 1e-10);
  }
}

}  // namespace
}  // namespace cdens

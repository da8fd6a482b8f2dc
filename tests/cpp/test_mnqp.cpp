// Tests of density/mnqp.hpp: the multiplicative update of Chen, Hong & Harris (2010) eqs. 42–44
// and SMO for min ½βᵀBβ − vᵀβ on the simplex, checked against a brute-force enumeration of active
// sets and the KKT conditions.

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "density/mnqp.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A problem shaped like RSDE's (eqs. 13–15): B = Gram matrix of Gaussian kernels of width √2 γ
/// on n random points, v = Parzen estimate at the points; both strictly positive.
struct Problem {
  Matrix b;
  Vector v;
};

Problem kernel_problem(Index n, Index dimension, double gamma, std::uint64_t seed) {
  Rng rng(seed);
  const Matrix points = test::normal_matrix(dimension, n, rng);
  Problem problem;
  const double norm_b = std::pow(4.0 * kPi * gamma * gamma, -0.5 * dimension);
  const double norm_v = std::pow(2.0 * kPi * gamma * gamma, -0.5 * dimension);
  problem.b = norm_b * gaussian_kernel(points, points, std::sqrt(2.0) * gamma);
  problem.v = norm_v * gaussian_kernel(points, points, gamma).rowwise().mean();
  return problem;
}

/// The exact minimiser over the simplex by enumerating every support S: the equality-constrained
/// minimiser on S from its KKT system [B_SS 1; 1ᵀ 0] (β, −h) = (v, 1), kept if β ≥ 0. B is
/// positive definite here, so the best feasible support is the global minimum.
Vector brute_force(const Problem& problem) {
  const Index n = problem.v.size();
  double best = std::numeric_limits<double>::infinity();
  Vector best_beta;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    std::vector<Index> support;
    for (Index i = 0; i < n; ++i) {
      if (mask & (1u << i)) support.push_back(i);
    }
    const Index s = static_cast<Index>(support.size());
    Matrix kkt = Matrix::Zero(s + 1, s + 1);
    Vector rhs(s + 1);
    for (Index a = 0; a < s; ++a) {
      for (Index c = 0; c < s; ++c) kkt(a, c) = problem.b(support[a], support[c]);
      kkt(a, s) = kkt(s, a) = 1.0;
      rhs(a) = problem.v(support[a]);
    }
    rhs(s) = 1.0;
    const Vector solution = kkt.fullPivLu().solve(rhs);
    if ((solution.head(s).array() < -1e-12).any()) continue;
    Vector beta = Vector::Zero(n);
    for (Index a = 0; a < s; ++a) beta(support[a]) = std::max(0.0, solution(a));
    const double value = mnqp_objective(problem.b, problem.v, beta);
    if (value < best) {
      best = value;
      best_beta = beta;
    }
  }
  return best_beta;
}

TEST(Mnqp, WeightsStayOnTheSimplexAndTheObjectiveNeverIncreases) {
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    const Problem problem = kernel_problem(30, 1 + seed % 2, 0.3 + 0.2 * seed, seed);
    MnqpOptions options;
    options.record_objective = true;
    options.prune_threshold = 0.0;
    const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
    EXPECT_TRUE((result.weights.array() >= 0.0).all());
    EXPECT_NEAR(result.weights.sum(), 1.0, 1e-12);
    ASSERT_GE(result.objective_history.size(), 2u);
    for (std::size_t t = 1; t < result.objective_history.size(); ++t) {
      const double previous = result.objective_history[t - 1];
      EXPECT_LE(result.objective_history[t], previous + 1e-14 * std::abs(previous))
          << "seed " << seed << ", update " << t;
    }
  }
}

TEST(Mnqp, MatchesBruteForceOnSmallProblems) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const Problem problem = kernel_problem(2 + seed % 5, 1 + seed % 3, 0.2 + 0.15 * seed, seed);
    MnqpOptions options;
    options.prune_threshold = 0.0;
    options.max_iterations = 200000;
    options.tolerance = 1e-14;
    const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
    const Vector expected = brute_force(problem);
    const double f_expected = mnqp_objective(problem.b, problem.v, expected);
    EXPECT_NEAR(result.objective, f_expected, 1e-9 * std::abs(f_expected)) << "seed " << seed;
    EXPECT_LT((result.weights - expected).cwiseAbs().maxCoeff(), 1e-4) << "seed " << seed;
  }
}

TEST(Mnqp, SolutionSatisfiesTheKktConditions) {
  // At the optimum the gradient g = Bβ − v equals a common value on the support and is no
  // smaller off it.
  const Problem problem = kernel_problem(40, 2, 0.25, 21);
  MnqpOptions options;
  options.max_iterations = 100000;
  options.tolerance = 1e-13;
  const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
  const Vector gradient = problem.b * result.weights - problem.v;
  double level = 0.0;
  for (const Index i : result.kept) level += gradient(i) / static_cast<double>(result.kept.size());
  const double scale = problem.v.cwiseAbs().maxCoeff();
  for (Index i = 0; i < gradient.size(); ++i) {
    if (result.weights(i) > 0.0) {
      EXPECT_NEAR(gradient(i), level, 1e-6 * scale) << i;
    } else {
      EXPECT_GE(gradient(i), level - 1e-6 * scale) << i;
    }
  }
}

TEST(Mnqp, PruningRemovesSmallWeightsAndKeepsTheSimplex) {
  const Problem problem = kernel_problem(60, 1, 0.5, 4);
  MnqpOptions options;
  options.prune_threshold = 1e-2;
  const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
  EXPECT_LT(result.kept.size(), 60u);
  EXPECT_NEAR(result.weights.sum(), 1.0, 1e-12);
  const double largest = result.weights.maxCoeff();
  for (Index i = 0; i < result.weights.size(); ++i) {
    const bool is_kept = std::find(result.kept.begin(), result.kept.end(), i) != result.kept.end();
    EXPECT_EQ(is_kept, result.weights(i) > 0.0);
  }
  EXPECT_GT(result.weights(result.kept.front()), 0.0);
  EXPECT_GT(largest, 0.0);
  // Pruning is repeated until no kept weight is below the threshold, re-solves included.
  for (const Index i : result.kept) EXPECT_GE(result.weights(i), 1e-2 * largest) << i;
}

TEST(Mnqp, UnconstrainedOptimumInsideTheSimplexIsFound) {
  // B = I, v = β* + h·1 has the optimum β* for any h (the gradient is −h on every coordinate).
  Vector target(3);
  target << 0.2, 0.3, 0.5;
  MnqpOptions options;
  options.prune_threshold = 0.0;
  options.tolerance = 1e-15;
  options.max_iterations = 100000;
  const MnqpResult result =
      solve_mnqp(Matrix::Identity(3, 3), (target.array() + 0.7).matrix(), options);
  EXPECT_LT((result.weights - target).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(Mnqp, RejectsBadProblems) {
  const Problem problem = kernel_problem(4, 1, 0.5, 1);
  EXPECT_THROW(solve_mnqp(problem.b.leftCols(3), problem.v), InvalidArgument);
  EXPECT_THROW(solve_mnqp(problem.b, problem.v.head(3)), InvalidArgument);
  Matrix negative = problem.b;
  negative(0, 1) = negative(1, 0) = -0.1;
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              solve_mnqp(negative, problem.v);
            }).find("non-negative"),
            std::string::npos);
  Matrix asymmetric = problem.b;
  asymmetric(0, 1) += 0.1;
  EXPECT_THROW(solve_mnqp(asymmetric, problem.v), InvalidArgument);
  Vector with_nan = problem.v;
  with_nan(2) = std::nan("");
  EXPECT_THROW(solve_mnqp(problem.b, with_nan), InvalidArgument);
  MnqpOptions options;
  options.max_iterations = 0;
  EXPECT_THROW(solve_mnqp(problem.b, problem.v, options), InvalidArgument);
}

MnqpOptions smo_options() {
  MnqpOptions options{SimplexQpSolver::smo};
  options.prune_threshold = 0.0;
  return options;
}

TEST(MnqpBySmo, MatchesBruteForceOnSmallProblemsAndNeverRaisesTheObjective) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const Problem problem = kernel_problem(2 + seed % 5, 1 + seed % 3, 0.2 + 0.15 * seed, seed);
    MnqpOptions options = smo_options();
    options.tolerance = 1e-14;
    options.record_objective = true;
    const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
    EXPECT_TRUE(result.converged);
    const Vector expected = brute_force(problem);
    const double f_expected = mnqp_objective(problem.b, problem.v, expected);
    // SMO ends on the optimum's support with exact zeros off it: the weights to the rounding of
    // the KKT system's solution, not to MNQP's 10⁻⁴.
    EXPECT_NEAR(result.objective, f_expected, 1e-12 * std::abs(f_expected)) << "seed " << seed;
    EXPECT_LT((result.weights - expected).cwiseAbs().maxCoeff(), 1e-8) << "seed " << seed;
    EXPECT_TRUE((result.weights.array() >= 0.0).all());
    EXPECT_NEAR(result.weights.sum(), 1.0, 1e-14);
    for (std::size_t t = 1; t < result.objective_history.size(); ++t) {
      const double previous = result.objective_history[t - 1];
      EXPECT_LE(result.objective_history[t], previous + 1e-14 * std::abs(previous))
          << "seed " << seed << ", step " << t;
    }
  }
}

TEST(MnqpBySmo, ReachesTheOptimumOfADenseProblemWhereMnqpStopsAtItsBound) {
  // RSDE's problem on 272 points in 2-D at γ = 0.3 (Old Faithful's size): MNQP's 10,000 updates
  // leave the optimality conditions violated; SMO meets them to 10⁻¹⁰ of max v in fewer steps of
  // O(N) (MNQP's are O(N²)), at an objective no higher, with the KKT conditions holding (a common
  // gradient on the support, none lower off it).
  const Problem problem = kernel_problem(272, 2, 0.3, 5);
  MnqpOptions multiplicative;
  multiplicative.prune_threshold = 0.0;
  const MnqpResult by_mnqp = solve_mnqp(problem.b, problem.v, multiplicative);
  EXPECT_FALSE(by_mnqp.converged);
  const MnqpResult by_smo = solve_mnqp(problem.b, problem.v, smo_options());
  ASSERT_TRUE(by_smo.converged);
  EXPECT_LT(by_smo.iterations, 5000);  // 3,464 steps of O(N) each
  EXPECT_LE(by_smo.objective, by_mnqp.objective);
  const Vector gradient = problem.b * by_smo.weights - problem.v;
  const double enough = 1e-10 * problem.v.cwiseAbs().maxCoeff();
  double level = -INFINITY;
  for (const Index i : by_smo.kept) level = std::max(level, gradient(i));
  EXPECT_LE(level - gradient.minCoeff(), enough);
  for (const Index i : by_smo.kept) EXPECT_NEAR(gradient(i), level, enough) << i;
  EXPECT_LT(by_smo.kept.size(), 100u);
}

TEST(MnqpBySmo, AKernelWrittenTwiceLeavesTheOptimumAsWithoutItsCopy) {
  // Equal kernels (η = 0 between them): weight moves between them freely, so the minimum is the
  // one of the problem without the copy.
  const Problem problem = kernel_problem(6, 1, 0.4, 7);
  Problem twice;
  const Index n = problem.v.size();
  twice.b.resize(n + 1, n + 1);
  twice.b.topLeftCorner(n, n) = problem.b;
  twice.b.block(0, n, n, 1) = problem.b.col(2);
  twice.b.block(n, 0, 1, n) = problem.b.row(2);
  twice.b(n, n) = problem.b(2, 2);
  twice.v.resize(n + 1);
  twice.v << problem.v, problem.v(2);
  MnqpOptions options = smo_options();
  options.tolerance = 1e-14;
  const MnqpResult result = solve_mnqp(twice.b, twice.v, options);
  const Vector expected = brute_force(problem);
  const double f_expected = mnqp_objective(problem.b, problem.v, expected);
  EXPECT_NEAR(result.objective, f_expected, 1e-12 * std::abs(f_expected));
  EXPECT_NEAR(result.weights(2) + result.weights(n), expected(2), 1e-8);
}

TEST(MnqpBySmo, PrunesAndReSolvesAsMnqpDoes) {
  const Problem problem = kernel_problem(60, 1, 0.5, 4);
  MnqpOptions options = smo_options();
  options.prune_threshold = 1e-2;
  const MnqpResult result = solve_mnqp(problem.b, problem.v, options);
  EXPECT_TRUE(result.converged);
  EXPECT_NEAR(result.weights.sum(), 1.0, 1e-14);
  const double largest = result.weights.maxCoeff();
  for (const Index i : result.kept) EXPECT_GE(result.weights(i), 1e-2 * largest) << i;
  Index positive = 0;
  for (Index i = 0; i < result.weights.size(); ++i) positive += result.weights(i) > 0.0;
  EXPECT_EQ(positive, static_cast<Index>(result.kept.size()));
}

}  // namespace
}  // namespace cdens

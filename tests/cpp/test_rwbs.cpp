// Tests of density/rwbs.hpp: RWBS finds the minimum of standard test functions from seeded
// starts, stays in its box, and is reproducible.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cdens/core/types.hpp"
#include "density/rwbs.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(Rwbs, FindsTheMinimumOfAShiftedSphere) {
  Vector shift(3);
  shift << 1.3, -2.1, 0.7;
  const auto sphere = [&](const Vector& u) { return (u - shift).squaredNorm(); };
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    RwbsOptions options;
    options.seed = seed;
    const RwbsResult result =
        rwbs_minimize(sphere, Vector::Constant(3, -5.0), Vector::Constant(3, 5.0), options);
    // With the paper's small 1-D settings (P_S = 10, M_I = 200, N_G = 10) in 3-D the population
    // contracts before it reaches the minimum exactly: within 0.5 % of the box width.
    EXPECT_LT((result.point - shift).norm(), 5e-2) << "seed " << seed;
    EXPECT_EQ(result.value, sphere(result.point));
    // §III-C: N_G (P_S + 2 M_I) − (N_G − 1) evaluations when no generation stops early.
    EXPECT_LE(result.evaluations, 10 * (10 + 2 * 200) - 9);
  }
}

TEST(Rwbs, FindsTheGlobalMinimumOfRastriginInTwoDimensions) {
  const auto rastrigin = [](const Vector& u) {
    double value = 10.0 * static_cast<double>(u.size());
    for (Index i = 0; i < u.size(); ++i) value += u(i) * u(i) - 10.0 * std::cos(2 * kPi * u(i));
    return value;
  };
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    RwbsOptions options;
    options.population = 20;
    options.generations = 30;
    options.iterations = 100;
    options.seed = seed;
    const RwbsResult result =
        rwbs_minimize(rastrigin, Vector::Constant(2, -5.12), Vector::Constant(2, 5.12), options);
    // The nearest local minima have values ≈ 1; the global one is 0 at the origin.
    EXPECT_LT(result.value, 1e-3) << "seed " << seed;
    EXPECT_LT(result.point.norm(), 3e-3) << "seed " << seed;
  }
}

TEST(Rwbs, StaysInTheBoxAndIsReproducible) {
  // Minimum outside the box: the answer is the nearest corner, and every evaluation is inside.
  Vector lower(2), upper(2);
  lower << 0.0, -1.0;
  upper << 1.0, 2.0;
  bool outside = false;
  const auto cost = [&](const Vector& u) {
    if ((u.array() < lower.array()).any() || (u.array() > upper.array()).any()) outside = true;
    return (u - Vector::Constant(2, 5.0)).squaredNorm();
  };
  const RwbsResult first = rwbs_minimize(cost, lower, upper);
  EXPECT_FALSE(outside);
  EXPECT_NEAR(first.point(0), 1.0, 1e-3);
  EXPECT_NEAR(first.point(1), 2.0, 1e-3);
  const RwbsResult second = rwbs_minimize(cost, lower, upper);
  EXPECT_TRUE(first.point == second.point);
}

TEST(Rwbs, RejectsBadInput) {
  const auto cost = [](const Vector& u) { return u.squaredNorm(); };
  EXPECT_THROW(rwbs_minimize(cost, Vector::Zero(2), Vector::Ones(3)), InvalidArgument);
  EXPECT_THROW(rwbs_minimize(cost, Vector::Ones(2), Vector::Zero(2)), InvalidArgument);
  RwbsOptions options;
  options.population = 1;
  EXPECT_THROW(rwbs_minimize(cost, Vector::Zero(2), Vector::Ones(2), options), InvalidArgument);
  const auto negative = [](const Vector& u) { return u.sum() - 10.0; };
  EXPECT_THROW(rwbs_minimize(negative, Vector::Zero(2), Vector::Ones(2)), InvalidArgument);
}

TEST(Rwbs, BatchesGiveThePointwiseResultInTheAppendixOrder) {
  Vector shift(2);
  shift << 0.4, -0.9;
  const auto sphere = [&](const Vector& u) { return (u - shift).squaredNorm(); };
  std::vector<Index> batch_sizes;
  const RwbsBatchCost batch = [&](const Matrix& points) {
    batch_sizes.push_back(points.cols());
    Vector costs(points.cols());
    for (Index j = 0; j < points.cols(); ++j) costs(j) = sphere(points.col(j));
    return costs;
  };
  RwbsOptions options;
  options.generations = 3;
  options.iterations = 5;
  options.stream = 4;
  const Vector lower = Vector::Constant(2, -2.0), upper = Vector::Constant(2, 2.0);
  const RwbsResult batched = rwbs_minimize_batches(batch, lower, upper, options);
  const RwbsResult pointwise = rwbs_minimize(sphere, lower, upper, options);
  EXPECT_TRUE(batched.point == pointwise.point);
  EXPECT_EQ(batched.evaluations, pointwise.evaluations);
  // Generation 1: P_S random members, then two points per WBS iteration; later generations keep
  // the elite and draw P_S − 1.
  const std::vector<Index> expected = {10, 2, 2, 2, 2, 2, 9, 2, 2, 2, 2, 2, 9, 2, 2, 2, 2, 2};
  EXPECT_EQ(batch_sizes, expected);
  EXPECT_EQ(batched.evaluations, 3 * (10 + 2 * 5) - 2);  // N_G (P_S + 2 M_I) − (N_G − 1)
  // Another stream is another population.
  options.stream = 5;
  EXPECT_FALSE(rwbs_minimize(sphere, lower, upper, options).point == pointwise.point);
  const RwbsBatchCost wrong = [](const Matrix&) { return Vector(Vector::Zero(1)); };
  EXPECT_THROW(rwbs_minimize_batches(wrong, lower, upper, options), InvalidArgument);
}

}  // namespace
}  // namespace cdens

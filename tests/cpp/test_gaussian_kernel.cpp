// Tests of kernel_sums/gaussian_kernel.hpp: squared distances through one GEMM against a direct
// double loop, and the Gaussian kernel against direct exponentials.

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "support.hpp"

namespace cdens {
namespace {

double brute_force_distance(const Matrix& a, Index i, const Matrix& b, Index j) {
  double sum = 0.0;
  for (Index r = 0; r < a.rows(); ++r) {
    const double difference = a(r, i) - b(r, j);
    sum += difference * difference;
  }
  return sum;
}

/// Rounding bound of ‖a‖² + ‖b‖² − 2aᵀb: a few ulps of the largest term, which is at most
/// 2(‖a‖² + ‖b‖²).
double cancellation_tolerance(const Matrix& a, Index i, const Matrix& b, Index j) {
  return 1e-14 * (1.0 + a.col(i).squaredNorm() + b.col(j).squaredNorm());
}

struct Shape {
  Index d, m, k;
};

const std::vector<Shape> kShapes = {{1, 5, 7},  {1, 1, 1},   {3, 1, 9},   {4, 6, 1},
                                    {1, 40, 1}, {5, 20, 13}, {17, 3, 300}};

TEST(GaussianKernelTest, SquaredDistancesMatchBruteForce) {
  Rng rng(11);
  for (const auto& shape : kShapes) {
    SCOPED_TRACE(testing::Message() << "d=" << shape.d << " m=" << shape.m << " k=" << shape.k);
    // Offset points so that the GEMM form has something to cancel.
    const Matrix a = (test::normal_matrix(shape.d, shape.m, rng).array() * 2.0 + 3.0).matrix();
    const Matrix b = (test::normal_matrix(shape.d, shape.k, rng).array() * 0.5 - 1.0).matrix();
    const Matrix distances = squared_distances(a, b);
    ASSERT_EQ(distances.rows(), shape.m);
    ASSERT_EQ(distances.cols(), shape.k);
    for (Index i = 0; i < shape.m; ++i) {
      for (Index j = 0; j < shape.k; ++j) {
        EXPECT_NEAR(distances(i, j), brute_force_distance(a, i, b, j),
                    cancellation_tolerance(a, i, b, j));
      }
    }
    // The overload writing into a block of a larger matrix gives the same numbers.
    Matrix big = Matrix::Constant(shape.m + 2, shape.k + 3, -7.0);
    squared_distances(a, b, big.block(1, 2, shape.m, shape.k));
    EXPECT_EQ(big.block(1, 2, shape.m, shape.k), distances);
    EXPECT_EQ(big(0, 0), -7.0);
    EXPECT_EQ(big(shape.m + 1, shape.k + 2), -7.0);
  }
}

TEST(GaussianKernelTest, IdenticalPointsGiveNonNegativeNearZeroDistances) {
  Rng rng(12);
  for (const double offset : {0.0, 1e3, -1e5}) {
    SCOPED_TRACE(offset);
    const Matrix a = (test::normal_matrix(6, 50, rng).array() + offset).matrix();
    const Matrix distances = squared_distances(a, a);
    EXPECT_GE(distances.minCoeff(), 0.0);
    for (Index i = 0; i < a.cols(); ++i) {
      EXPECT_LE(distances(i, i), cancellation_tolerance(a, i, a, i));
    }
    // Symmetric up to rounding.
    EXPECT_LT((distances - distances.transpose()).cwiseAbs().maxCoeff(),
              1e-14 * (1.0 + 2.0 * a.colwise().squaredNorm().maxCoeff()));
  }
}

TEST(GaussianKernelTest, KernelMatchesDirectExponential) {
  Rng rng(13);
  for (const double sigma : {0.3, 1.0, 4.5}) {
    for (const auto& shape : kShapes) {
      SCOPED_TRACE(testing::Message() << "sigma=" << sigma << " d=" << shape.d);
      const Matrix a = test::normal_matrix(shape.d, shape.m, rng);
      const Matrix b = test::normal_matrix(shape.d, shape.k, rng);
      const Matrix kernel = gaussian_kernel(a, b, sigma);
      ASSERT_EQ(kernel.rows(), shape.m);
      ASSERT_EQ(kernel.cols(), shape.k);
      for (Index i = 0; i < shape.m; ++i) {
        for (Index j = 0; j < shape.k; ++j) {
          const double exact = std::exp(-brute_force_distance(a, i, b, j) / (2.0 * sigma * sigma));
          // exp turns an absolute error δ of the exponent into a relative error δ.
          const double exponent_error = cancellation_tolerance(a, i, b, j) / (2.0 * sigma * sigma);
          EXPECT_NEAR(kernel(i, j), exact, (exponent_error + 1e-15) * exact + 1e-300);
          EXPECT_LE(kernel(i, j), 1.0);
          EXPECT_GE(kernel(i, j), 0.0);
        }
      }
    }
  }
  // Same point: exactly one.
  const Matrix point = Matrix::Constant(2, 1, 0.75);
  EXPECT_EQ(gaussian_kernel(point, point, 0.1)(0, 0), 1.0);
}

TEST(GaussianKernelTest, ShapeErrorsAreInvalidArgument) {
  const Matrix a = Matrix::Zero(3, 4);
  const Matrix b = Matrix::Zero(2, 5);
  EXPECT_THROW(squared_distances(a, b), InvalidArgument);
  Matrix out(4, 4);
  EXPECT_THROW(squared_distances(a, Matrix::Zero(3, 5), out), InvalidArgument);
  EXPECT_THROW(gaussian_kernel(a, b, 1.0), InvalidArgument);
}

TEST(GaussianKernelTest, NonPositiveBandwidthIsInvalidArgument) {
  // docs/design.md: every public entry point rejects non-positive bandwidths instead of returning
  // NaN (σ = 0 gives 0 · ∞ = NaN on the diagonal).
  const Matrix a = Matrix::Ones(2, 3);
  for (const double sigma : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    SCOPED_TRACE(sigma);
    EXPECT_THROW(gaussian_kernel(a, a, sigma), InvalidArgument);
  }
}

}  // namespace
}  // namespace cdens

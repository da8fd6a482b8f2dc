// The Grassmann optimiser of LSCE and LSMI (§2.5, after Edelman, Arias & Smith 1998): points stay
// orthonormal, the geodesic leaves W along minus the natural gradient (central differences), and
// geodesic line searches find the closed-form minimiser of a Rayleigh quotient.

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "conditional/grassmann.hpp"
#include "support.hpp"

namespace cdens {
namespace {

double orthonormality_error(const Matrix& w) {
  return (w * w.transpose() - Matrix::Identity(w.rows(), w.rows())).cwiseAbs().maxCoeff();
}

TEST(GrassmannTest, RandomPointsAndComplementsAreOrthonormal) {
  Rng rng(3);
  for (const auto& [rows, cols] : {std::pair<Index, Index>{1, 5}, {2, 5}, {4, 9}, {5, 5}}) {
    const Matrix w = random_orthonormal_rows(rows, cols, rng);
    EXPECT_LT(orthonormality_error(w), 1e-14);
    const Matrix complement = orthonormal_complement(w);
    ASSERT_EQ(complement.rows(), cols - rows);
    Matrix frame(cols, cols);
    frame << w, complement;
    EXPECT_LT(orthonormality_error(frame), 1e-14);
  }
  EXPECT_THROW(random_orthonormal_rows(3, 2, rng), InvalidArgument);
  EXPECT_THROW(random_orthonormal_rows(0, 2, rng), InvalidArgument);
}

TEST(GrassmannTest, NaturalGradientIsTheProjectionOntoTheTangentSpace) {
  Rng rng(4);
  const Matrix w = random_orthonormal_rows(2, 6, rng);
  const Matrix gradient = test::normal_matrix(2, 6, rng);
  const Matrix natural = natural_gradient(w, gradient);
  const Matrix complement = orthonormal_complement(w);
  // ∇ = G W⊥ᵀ W⊥ (§2.5), and it is orthogonal to the rows of W.
  EXPECT_LT((natural - gradient * complement.transpose() * complement).cwiseAbs().maxCoeff(),
            1e-14);
  EXPECT_LT((natural * w.transpose()).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(GrassmannTest, GeodesicLeavesAlongMinusTheNaturalGradient) {
  Rng rng(5);
  for (const auto& [rows, cols] : {std::pair<Index, Index>{1, 5}, {2, 5}, {3, 8}}) {
    const Matrix w = random_orthonormal_rows(rows, cols, rng);
    const Matrix gradient = test::normal_matrix(rows, cols, rng);
    const GrassmannGeodesic geodesic(w, gradient);
    EXPECT_LT((geodesic.at(0.0) - w).cwiseAbs().maxCoeff(), 1e-14);
    // Central differences: the error is O(h²)·‖B‖³ ≈ 1e-10 plus rounding 1e-16/h ≈ 1e-11.
    const double h = 1e-5;
    const Matrix derivative = (geodesic.at(h) - geodesic.at(-h)) / (2.0 * h);
    const Matrix natural = natural_gradient(w, gradient);
    EXPECT_LT((derivative + natural).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + natural.norm()));
    // slope() is the derivative of f(W_t) for the linear f(W) = ⟨G, W⟩ with gradient G.
    const double linear_slope = (gradient.cwiseProduct(derivative)).sum();
    EXPECT_NEAR(geodesic.slope(), linear_slope, 1e-7 * (1.0 + std::abs(linear_slope)));
  }
}

TEST(GrassmannTest, PointsStayOrthonormalAlongAChainOfGeodesics) {
  Rng rng(6);
  Matrix w = random_orthonormal_rows(3, 9, rng);
  for (int step = 0; step < 300; ++step) {
    const Matrix gradient = test::normal_matrix(3, 9, rng) * (1.0 + 10.0 * rng.uniform());
    w = GrassmannGeodesic(w, gradient).at(5.0 * rng.uniform());
    ASSERT_LT(orthonormality_error(w), 1e-10) << "after step " << step;
  }
}

TEST(GrassmannTest, LineSearchesFindTheSubspaceOfTheSmallestEigenvalues) {
  // f(W) = tr(W A Wᵀ) is minimised over G(2, 6) by the span of the eigenvectors of the two
  // smallest eigenvalues of A (Ky Fan); ∂f/∂W = 2 W A.
  Rng rng(7);
  const Matrix root = test::normal_matrix(6, 6, rng);
  const Matrix a = root * root.transpose();
  const auto f = [&](const Matrix& w) { return (w * a * w.transpose()).trace(); };
  Matrix w = random_orthonormal_rows(2, 6, rng);
  double value = f(w);
  double t = 0.1;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    const GrassmannGeodesic geodesic(w, 2.0 * w * a);
    const GeodesicStep step = geodesic_line_search(geodesic, value, t, f);
    ASSERT_LE(step.value, value);
    if (step.t == 0.0) break;
    w = step.w;
    value = step.value;
    t = step.t;
  }
  const Eigen::SelfAdjointEigenSolver<Matrix> solver(a);
  const Matrix target = solver.eigenvectors().leftCols(2).transpose();
  EXPECT_NEAR(value, solver.eigenvalues().head(2).sum(), 1e-9 * solver.eigenvalues().sum());
  EXPECT_LT((w.transpose() * w - target.transpose() * target).norm(), 1e-4);
  EXPECT_LT(orthonormality_error(w), 1e-10);
}

}  // namespace
}  // namespace cdens

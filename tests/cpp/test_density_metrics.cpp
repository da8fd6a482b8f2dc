// Tests of the density measures of core/metrics.hpp (Chen, Hong & Harris 2010, §IV): the L1 test
// error (eq. 47) by direct sums, the grid KL divergence (eqs. 49–50) against the closed form for
// Gaussians, the model size and the held-out ISE.

#include <gtest/gtest.h>

#include <cmath>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A product of independent normals N(mean_i, sd_i²) as a one-component mixture.
GaussianMixture normal(const Vector& mean, const Vector& sd) {
  return GaussianMixture(Standardizer::identity(mean.size()), Vector::Ones(1), mean, sd);
}

double normal_pdf(double x, double mean, double sd) {
  return std::exp(-0.5 * std::pow((x - mean) / sd, 2)) / (std::sqrt(2 * kPi) * sd);
}

/// KL(N(m1, s1²) ‖ N(m2, s2²)).
double gaussian_kl(double m1, double s1, double m2, double s2) {
  return std::log(s2 / s1) + (s1 * s1 + (m1 - m2) * (m1 - m2)) / (2 * s2 * s2) - 0.5;
}

TEST(DensityMetrics, L1TestErrorIsTheMeanAbsoluteDifference) {
  Rng rng(3);
  const Matrix x = test::normal_matrix(1, 200, rng);
  const GaussianMixture model = normal(Vector::Constant(1, 0.3), Vector::Constant(1, 1.2));
  Vector truth(200);
  double expected = 0.0;
  for (Index k = 0; k < 200; ++k) {
    truth(k) = normal_pdf(x(0, k), 0.0, 1.0);
    expected += std::abs(truth(k) - normal_pdf(x(0, k), 0.3, 1.2)) / 200.0;
  }
  EXPECT_NEAR(l1_test_error(model, x, truth), expected, 1e-15);
  Vector exact(200);
  for (Index k = 0; k < 200; ++k) exact(k) = normal_pdf(x(0, k), 0.3, 1.2);
  EXPECT_NEAR(l1_test_error(model, x, exact), 0.0, 1e-16);
  EXPECT_THROW(l1_test_error(model, x, truth.head(10)), InvalidArgument);
  truth(4) = -1.0;
  EXPECT_THROW(l1_test_error(model, x, truth), DataError);
}

TEST(DensityMetrics, GridKlDivergenceMatchesTheGaussianClosedForm) {
  // 1-D, eq. (49) with N_par = 10,000 on [−10, 12]: the Riemann sum of a smooth integrand whose
  // tails beyond the box are below 1e−20, accurate far beyond 1e−8.
  const GaussianMixture estimate = normal(Vector::Constant(1, 1.0), Vector::Constant(1, 1.5));
  const KlGrid line =
      kl_divergence_grid(Vector::Constant(1, -10.0), Vector::Constant(1, 12.0), 10000);
  ASSERT_EQ(line.points.cols(), 10000);
  EXPECT_NEAR(line.points(0, 0), -10.0 + 22.0 / 10000, 1e-12);  // x_min + Δx (k starts at 1)
  EXPECT_NEAR(line.points(0, 9999), 12.0, 1e-12);
  Vector truth(line.points.cols());
  for (Index k = 0; k < truth.size(); ++k) truth(k) = normal_pdf(line.points(0, k), 0.0, 1.0);
  EXPECT_NEAR(kl_divergence_on_grid(estimate, line, truth), gaussian_kl(0, 1, 1, 1.5), 1e-8);

  // 2-D, eq. (50) with N_par = 300: the KL of a product is the sum over dimensions.
  Vector mean(2), sd(2);
  mean << 1.0, -0.5;
  sd << 1.5, 0.8;
  const KlGrid plane = kl_divergence_grid(Vector::Constant(2, -9.0), Vector::Constant(2, 9.0), 300);
  EXPECT_NEAR(plane.cell_volume, 0.06 * 0.06, 1e-15);
  Vector joint(plane.points.cols());
  for (Index k = 0; k < joint.size(); ++k) {
    joint(k) = normal_pdf(plane.points(0, k), 0.0, 1.0) * normal_pdf(plane.points(1, k), 0.0, 1.0);
  }
  const double expected = gaussian_kl(0, 1, 1.0, 1.5) + gaussian_kl(0, 1, -0.5, 0.8);
  EXPECT_NEAR(kl_divergence_on_grid(normal(mean, sd), plane, joint), expected, 1e-6);
  EXPECT_THROW(kl_divergence_grid(Vector::Ones(2), Vector::Zero(2), 10), InvalidArgument);
  EXPECT_THROW(kl_divergence_grid(Vector::Zero(3), Vector::Ones(3), 1000), InvalidArgument);
  EXPECT_THROW(kl_divergence_on_grid(estimate, line, truth.head(5)), InvalidArgument);
}

TEST(DensityMetrics, ModelSizeAndHeldOutIse) {
  Matrix centers(1, 3), widths(1, 3);
  centers << -1.0, 0.0, 2.0;
  widths << 0.5, 1.0, 0.7;
  Vector weights(3);
  weights << 0.3, 0.0, 0.7;
  const GaussianMixture model(Standardizer::identity(1), weights, centers, widths);
  EXPECT_EQ(model_size(model), 2);
  // ∫p̂² in closed form (eq. 14) and the mean density at the points by direct sums.
  Matrix x(1, 3);
  x << -0.5, 1.0, 2.5;
  double square = 0.0;
  for (Index a = 0; a < 3; ++a) {
    for (Index b = 0; b < 3; ++b) {
      square += weights(a) * weights(b) *
                normal_pdf(centers(0, a), centers(0, b),
                           std::sqrt(widths(0, a) * widths(0, a) + widths(0, b) * widths(0, b)));
    }
  }
  double mean_density = 0.0;
  for (Index j = 0; j < 3; ++j) {
    for (Index l = 0; l < 3; ++l) {
      mean_density += weights(l) * normal_pdf(x(0, j), centers(0, l), widths(0, l)) / 3.0;
    }
  }
  EXPECT_NEAR(held_out_ise(model, x), square - 2.0 * mean_density, 1e-14);
}

}  // namespace
}  // namespace cdens

// Tests of core/conditional_mixture.hpp, the fitted shape of every conditional estimator:
//
//   p(y|x) = Σ_k w_k(x) N(y; c_k, diag s_k²) / Σ_k w_k(x)   (standardised x and y).
//
// Every query is compared with a brute-force computation written here from the formula above in
// the user's units — a direct sum over components, quadrature on a grid, a bisection, a
// closed-form Gaussian — never with another query of the class alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/lscde_gate.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kZ95 = 1.959963984540054;   // Φ⁻¹(0.975)
constexpr double kZ50 = 0.6744897501960817;  // Φ⁻¹(0.75)

// ---------------------------------------------------------------------------------------------
// Test-only gates.

/// x-independent weights w_k = exp(log_weights_k); the marginal weights are the same.
class FixedGate final : public ConditionalGate {
 public:
  FixedGate(Index input_dim, Vector log_weights)
      : input_dim_(input_dim), log_weights_(std::move(log_weights)) {}

  std::string kind() const override { return "test_fixed"; }
  Index input_dim() const override { return input_dim_; }
  Index n_components() const override { return log_weights_.size(); }
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override {
    for (Index j = 0; j < x.cols(); ++j) out.col(j) = log_weights_;
  }
  Vector log_marginal_weights() const override { return log_weights_; }
  nlohmann::json to_json() const override {
    return {{"input_dim", input_dim_},
            {"log_weights",
             std::vector<double>(log_weights_.data(), log_weights_.data() + log_weights_.size())}};
  }

 private:
  Index input_dim_;
  Vector log_weights_;
};

/// w_k(z) = m_k exp(a_k z_0) for standardised z_0 ≤ cutoff and exactly zero beyond, so the
/// mixture must fall back to the marginal weights m_k there.
class CutoffGate final : public ConditionalGate {
 public:
  CutoffGate(Vector slopes, Vector marginal, double cutoff)
      : slopes_(std::move(slopes)), marginal_(std::move(marginal)), cutoff_(cutoff) {}

  std::string kind() const override { return "test_cutoff"; }
  Index input_dim() const override { return 1; }
  Index n_components() const override { return slopes_.size(); }
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override {
    for (Index j = 0; j < x.cols(); ++j) {
      for (Index k = 0; k < slopes_.size(); ++k) {
        out(k, j) = x(0, j) <= cutoff_ ? std::log(marginal_(k)) + slopes_(k) * x(0, j)
                                       : -std::numeric_limits<double>::infinity();
      }
    }
  }
  Vector log_marginal_weights() const override { return marginal_.array().log(); }
  nlohmann::json to_json() const override { return {{"cutoff", cutoff_}}; }

 private:
  Vector slopes_;
  Vector marginal_;
  double cutoff_;
};

// ---------------------------------------------------------------------------------------------
// Brute force, in the user's units, written from the formula.

double normal_pdf(double y, double mean, double sd) {
  const double u = (y - mean) / sd;
  return std::exp(-0.5 * u * u) / (std::sqrt(2.0 * kPi) * sd);
}

double normal_cdf(double y, double mean, double sd) {
  return 0.5 * std::erfc(-(y - mean) / (sd * std::sqrt(2.0)));
}

struct Reference {
  Vector x_mean, x_scale, y_mean, y_scale;
  Matrix centers, scales;  // standardised output units, d_y × K
  /// Unnormalised log w_k at a standardised input.
  std::function<Vector(const Vector&)> log_weights;
  Vector marginal;  // unnormalised linear marginal weights

  Index n_components() const { return centers.cols(); }
  Index output_dim() const { return centers.rows(); }

  Vector standardise(const Vector& x) const {
    Vector z(x.size());
    for (Index i = 0; i < x.size(); ++i) z(i) = (x(i) - x_mean(i)) / x_scale(i);
    return z;
  }
  /// π_k(x) = w_k / Σ w_l, or the normalised marginal weights where every w_k is zero.
  Vector probabilities(const Vector& x) const {
    const Vector log_w = log_weights(standardise(x));
    Vector w(n_components());
    double total = 0.0;
    for (Index k = 0; k < n_components(); ++k) {
      w(k) = std::exp(log_w(k));
      total += w(k);
    }
    if (total == 0.0) {
      w = marginal;
      total = marginal.sum();
    }
    return w / total;
  }
  double mean_of(Index d, Index k) const { return y_mean(d) + y_scale(d) * centers(d, k); }
  double sd_of(Index d, Index k) const { return y_scale(d) * scales(d, k); }

  double density_given(const Vector& pi, const Vector& y) const {
    double density = 0.0;
    for (Index k = 0; k < n_components(); ++k) {
      double product = pi(k);
      for (Index d = 0; d < output_dim(); ++d)
        product *= normal_pdf(y(d), mean_of(d, k), sd_of(d, k));
      density += product;
    }
    return density;
  }
  double density(const Vector& x, const Vector& y) const {
    return density_given(probabilities(x), y);
  }
  double cdf_given(const Vector& pi, double y) const {
    double probability = 0.0;
    for (Index k = 0; k < n_components(); ++k)
      probability += pi(k) * normal_cdf(y, mean_of(0, k), sd_of(0, k));
    return probability;
  }
  /// [lo, hi] of dimension d holding all but ~1e-33 of every component's mass.
  std::pair<double, double> range(Index d, double widths) const {
    double lo = INFINITY, hi = -INFINITY;
    for (Index k = 0; k < n_components(); ++k) {
      lo = std::min(lo, mean_of(d, k) - widths * sd_of(d, k));
      hi = std::max(hi, mean_of(d, k) + widths * sd_of(d, k));
    }
    return {lo, hi};
  }
  double smallest_sd(Index d) const {
    double smallest = INFINITY;
    for (Index k = 0; k < n_components(); ++k) smallest = std::min(smallest, sd_of(d, k));
    return smallest;
  }
};

struct Case {
  ConditionalMixture mixture;
  Reference reference;
  Matrix x;  // query inputs in user units
};

Vector vec(std::initializer_list<double> values) {
  Vector v(static_cast<Index>(values.size()));
  Index i = 0;
  for (double value : values) v(i++) = value;
  return v;
}

std::function<Vector(const Vector&)> lscde_log_weights(const Matrix& centers_x, const Vector& alpha,
                                                       double sigma) {
  return [=](const Vector& z) {
    Vector out(alpha.size());
    for (Index k = 0; k < alpha.size(); ++k) {
      double squared = 0.0;
      for (Index d = 0; d < z.size(); ++d)
        squared += (z(d) - centers_x(d, k)) * (z(d) - centers_x(d, k));
      out(k) = std::log(alpha(k)) - squared / (2.0 * sigma * sigma);
    }
    return out;
  };
}

/// Means and scales of the input and output standardisers of a case.
struct Scalings {
  Vector x_mean, x_scale, y_mean, y_scale;
};

/// A mixture with an LSCDE gate, its brute-force reference and the query inputs x.
Case lscde_case(const Scalings& scalings, const Matrix& centers_x, const Vector& alpha,
                double sigma, const Matrix& centers, const Matrix& scales, const Matrix& x) {
  const auto& [x_mean, x_scale, y_mean, y_scale] = scalings;
  ConditionalMixture mixture(Standardizer(x_mean, x_scale), Standardizer(y_mean, y_scale),
                             std::make_shared<const LscdeGate>(centers_x, alpha, sigma),
                             MixtureOutputs::gaussian(centers, scales));
  Reference reference{
      x_mean, x_scale, y_mean, y_scale, centers, scales, lscde_log_weights(centers_x, alpha, sigma),
      alpha};
  return {std::move(mixture), std::move(reference), x};
}

/// d_x = 2, d_y = 1, four components of different widths, LSCDE gate.
Case scalar_case() {
  const Vector x_mean = vec({1.5, -2.0}), x_scale = vec({0.7, 3.0});
  const Vector y_mean = vec({10.0}), y_scale = vec({4.0});
  Matrix centers_x(2, 4);
  centers_x << -1.0, 0.5, 1.2, -0.3,  //
      0.8, -1.1, 0.4, 0.0;
  const Vector alpha = vec({0.3, 1.2, 0.5, 0.9});
  const double sigma = 0.8;
  Matrix centers(1, 4), scales(1, 4);
  centers << -1.5, -0.2, 0.7, 2.0;
  scales << 0.5, 0.8, 1.1, 0.6;
  Matrix x(2, 4);
  x << 1.5, 1.0, 2.3, 0.2,  //
      -2.0, 0.5, -4.0, 1.0;
  return lscde_case({x_mean, x_scale, y_mean, y_scale}, centers_x, alpha, sigma, centers, scales,
                    x);
}

/// d_x = 1, d_y = 2, three components with different widths per dimension, LSCDE gate.
Case vector_case() {
  const Vector x_mean = vec({-5.0}), x_scale = vec({2.5});
  const Vector y_mean = vec({-3.0, 20.0}), y_scale = vec({0.5, 6.0});
  Matrix centers_x(1, 3);
  centers_x << -1.0, 0.2, 1.3;
  const Vector alpha = vec({0.7, 0.4, 1.0});
  const double sigma = 0.9;
  Matrix centers(2, 3), scales(2, 3);
  centers << -1.0, 0.5, 1.5,  //
      0.8, -0.6, 0.3;
  scales << 0.6, 0.9, 0.5,  //
      0.7, 0.4, 1.0;
  Matrix x(1, 3);
  x << -5.0, -7.5, -2.0;
  return lscde_case({x_mean, x_scale, y_mean, y_scale}, centers_x, alpha, sigma, centers, scales,
                    x);
}

/// d_x = 1, d_y = 1, the cutoff gate: all weights are exactly zero for standardised x > 0.5.
Case cutoff_case() {
  const Vector x_mean = vec({1.0}), x_scale = vec({2.0});
  const Vector y_mean = vec({3.0}), y_scale = vec({0.5});
  const Vector slopes = vec({1.0, -0.5, 0.3}), marginal = vec({1.0, 2.0, 5.0});
  const double cutoff = 0.5;
  Matrix centers(1, 3), scales(1, 3);
  centers << -1.0, 0.0, 1.5;
  scales << 0.4, 0.7, 0.5;
  Matrix x(1, 3);
  x << -1.0, 5.0, 1e6;  // z = −1 (gate weights), z = 2 and z ≈ 5e5 (fallback)
  ConditionalMixture mixture(Standardizer(x_mean, x_scale), Standardizer(y_mean, y_scale),
                             std::make_shared<const CutoffGate>(slopes, marginal, cutoff),
                             MixtureOutputs::gaussian(centers, scales));
  auto log_weights = [=](const Vector& z) {
    Vector out(3);
    for (Index k = 0; k < 3; ++k) {
      out(k) = z(0) <= cutoff ? std::log(marginal(k)) + slopes(k) * z(0)
                              : -std::numeric_limits<double>::infinity();
    }
    return out;
  };
  Reference reference{x_mean, x_scale, y_mean, y_scale, centers, scales, log_weights, marginal};
  return {std::move(mixture), std::move(reference), x};
}

/// A single Gaussian N(−6, 2²) in user units, whatever x is.
ConditionalMixture single_gaussian() {
  Matrix centers(1, 1), scales(1, 1);
  centers << 0.4;
  scales << 0.8;
  return ConditionalMixture(
      Standardizer(vec({2.0}), vec({3.0})), Standardizer(vec({-7.0}), vec({2.5})),
      std::make_shared<const FixedGate>(1, vec({0.0})), MixtureOutputs::gaussian(centers, scales));
}

std::vector<double> linspace(double lo, double hi, Index n) {
  std::vector<double> points(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    points[static_cast<std::size_t>(i)] =
        lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
  return points;
}

/// Trapezoid weights of an even grid of n points with step h.
std::vector<double> trapezoid_weights(Index n, double h) {
  std::vector<double> weights(static_cast<std::size_t>(n), h);
  weights.front() = weights.back() = 0.5 * h;
  return weights;
}

Matrix row(const std::vector<double>& values) {
  return Eigen::Map<const Matrix>(values.data(), 1, static_cast<Index>(values.size()));
}

Matrix repeat(const Vector& column, Index times) { return column.replicate(1, times); }

// ---------------------------------------------------------------------------------------------
// Densities.

TEST(ConditionalMixtureTest, LogPdfMatchesDirectSumScalarOutput) {
  const Case c = scalar_case();
  ASSERT_EQ(c.mixture.input_dim(), 2);
  ASSERT_EQ(c.mixture.output_dim(), 1);
  ASSERT_EQ(c.mixture.n_components(), 4);
  for (Index j = 0; j < c.x.cols(); ++j) {
    for (const double y : {-5.0, 3.3, 10.0, 12.5, 19.0, 40.0}) {
      const Matrix yy = Matrix::Constant(1, 1, y);
      const double value = c.mixture.log_pdf(c.x.col(j), yy)(0);
      const double expected = std::log(c.reference.density(c.x.col(j), yy.col(0)));
      EXPECT_NEAR(value, expected, 1e-12 * (1.0 + std::abs(expected))) << "x " << j << " y " << y;
    }
  }
}

TEST(ConditionalMixtureTest, LogPdfMatchesDirectSumVectorOutput) {
  const Case c = vector_case();
  ASSERT_EQ(c.mixture.output_dim(), 2);
  Rng rng(21);
  const Matrix t = test::normal_matrix(2, 12, rng) * 1.5;
  for (Index j = 0; j < c.x.cols(); ++j) {
    // Pairs (x_j, y_i) for a dozen outputs at once.
    const Matrix y = Standardizer(c.reference.y_mean, c.reference.y_scale).inverse_transform(t);
    const Vector values = c.mixture.log_pdf(repeat(c.x.col(j), y.cols()), y);
    for (Index i = 0; i < y.cols(); ++i) {
      const double expected = std::log(c.reference.density(c.x.col(j), y.col(i)));
      EXPECT_NEAR(values(i), expected, 1e-12 * (1.0 + std::abs(expected)))
          << "x " << j << " y " << i;
    }
  }
}

TEST(ConditionalMixtureTest, LogPdfOfManyPairsMatchesDirectSum) {
  // More pairs than one query block (256), so block boundaries are crossed.
  const Case c = scalar_case();
  Rng rng(22);
  const Index m = 700;
  const Matrix x = Standardizer(c.reference.x_mean, c.reference.x_scale)
                       .inverse_transform(test::normal_matrix(2, m, rng));
  const Matrix y = (test::normal_matrix(1, m, rng).array() * 6.0 + 10.0).matrix();
  const Vector values = c.mixture.log_pdf(x, y);
  ASSERT_EQ(values.size(), m);
  for (Index j = 0; j < m; ++j) {
    const double expected = std::log(c.reference.density(x.col(j), y.col(j)));
    ASSERT_NEAR(values(j), expected, 1e-12 * (1.0 + std::abs(expected))) << "pair " << j;
  }
}

TEST(ConditionalMixtureTest, ZeroCoefficientsContributeNothing) {
  // log α = −∞ entries must drop out of the log-sum-exp, not poison it.
  const Vector x_mean = vec({0.5}), x_scale = vec({1.5}), y_mean = vec({-1.0}),
               y_scale = vec({2.0});
  Matrix centers_x(1, 3);
  centers_x << -0.5, 0.0, 0.9;
  const Vector alpha = vec({0.5, 0.0, 1.5});
  Matrix centers(1, 3), scales(1, 3);
  centers << -1.0, 0.3, 1.0;
  scales << 0.7, 0.7, 0.7;
  const ConditionalMixture mixture(Standardizer(x_mean, x_scale), Standardizer(y_mean, y_scale),
                                   std::make_shared<const LscdeGate>(centers_x, alpha, 0.7),
                                   MixtureOutputs::gaussian(centers, scales));
  // Hand computation with the two live components only.
  const Reference live{
      x_mean, x_scale, y_mean, y_scale, centers, scales, lscde_log_weights(centers_x, alpha, 0.7),
      alpha};
  for (const double x : {-2.0, 0.5, 3.0}) {
    for (const double y : {-4.0, -1.0, 2.5}) {
      const double expected = std::log(live.density(vec({x}), vec({y})));
      EXPECT_NEAR(mixture.log_pdf(Matrix::Constant(1, 1, x), Matrix::Constant(1, 1, y))(0),
                  expected, 1e-12 * (1.0 + std::abs(expected)));
    }
    EXPECT_EQ(mixture.component_probabilities(Matrix::Constant(1, 1, x))(1, 0), 0.0);
  }
}

TEST(ConditionalMixtureTest, ComponentsWithZeroWeightDoNotChangeOneDimensionalQueries) {
  // w = (1, 0): the second component, far away, has probability exactly zero, so every query is
  // that of N(0, 0.5²) in user units (identity output scaling).
  Matrix centers(1, 2), scales(1, 2);
  centers << 0.0, 1e7;
  scales << 0.5, 0.5;
  const ConditionalMixture mixture(
      Standardizer::identity(1), Standardizer::identity(1),
      std::make_shared<const FixedGate>(1, vec({0.0, -std::numeric_limits<double>::infinity()})),
      MixtureOutputs::gaussian(centers, scales));
  const Matrix x = Matrix::Zero(1, 1);
  EXPECT_EQ(mixture.component_probabilities(x)(1, 0), 0.0);
  EXPECT_NEAR(mixture.quantiles(x, {0.975})(0, 0), 0.5 * kZ95, 1e-9);
  const auto regions = mixture.highest_density_regions(x, 0.95);
  ASSERT_EQ(regions.size(), 1u);
  ASSERT_EQ(regions[0].intervals.size(), 1u);
  EXPECT_NEAR(regions[0].intervals[0].lower, -0.5 * kZ95, 1e-9);
  EXPECT_NEAR(regions[0].intervals[0].upper, 0.5 * kZ95, 1e-9);
}

TEST(ConditionalMixtureTest, ComponentProbabilitiesSumToOneAndMatchWeights) {
  for (const Case& c : {scalar_case(), vector_case(), cutoff_case()}) {
    const Matrix pi = c.mixture.component_probabilities(c.x);
    ASSERT_EQ(pi.rows(), c.mixture.n_components());
    ASSERT_EQ(pi.cols(), c.x.cols());
    for (Index j = 0; j < c.x.cols(); ++j) {
      EXPECT_NEAR(pi.col(j).sum(), 1.0, 1e-14);
      EXPECT_GE(pi.col(j).minCoeff(), 0.0);
      const Vector expected = c.reference.probabilities(c.x.col(j));
      for (Index k = 0; k < pi.rows(); ++k)
        EXPECT_NEAR(pi(k, j), expected(k), 1e-14) << "x " << j << " k " << k;
    }
  }
}

TEST(ConditionalMixtureTest, PdfGridEqualsExpLogPdfAndIntegratesToOneScalarOutput) {
  const Case c = scalar_case();
  const auto [lo, hi] = c.reference.range(0, 12.0);
  const Index n = 2001;
  const double h = (hi - lo) / static_cast<double>(n - 1);
  // For Gaussians the trapezoid rule's error is O(exp(−2π² s²/h²)); keep h ≤ s/2 so that it is
  // far below 1e-12, and the tails beyond 12 s hold < 1e-32.
  ASSERT_LE(h, 0.5 * c.reference.smallest_sd(0));
  const std::vector<double> points = linspace(lo, hi, n);
  const Matrix grid = row(points);
  const Matrix densities = c.mixture.pdf_grid(c.x, grid);
  ASSERT_EQ(densities.rows(), n);
  ASSERT_EQ(densities.cols(), c.x.cols());
  const auto weights = trapezoid_weights(n, h);
  for (Index j = 0; j < c.x.cols(); ++j) {
    double integral = 0.0;
    for (Index g = 0; g < n; ++g)
      integral += weights[static_cast<std::size_t>(g)] * densities(g, j);
    EXPECT_NEAR(integral, 1.0, 1e-10) << "x " << j;
    const Vector log_values = c.mixture.log_pdf(repeat(c.x.col(j), n), grid);
    const Vector pi = c.reference.probabilities(c.x.col(j));
    for (Index g = 0; g < n; g += 7) {
      const double direct =
          c.reference.density_given(pi, vec({points[static_cast<std::size_t>(g)]}));
      EXPECT_NEAR(densities(g, j), std::exp(log_values(g)), 1e-12 * densities(g, j) + 1e-300);
      EXPECT_NEAR(densities(g, j), direct, 1e-12 * direct + 1e-300);
    }
  }
}

/// Product grid of `per_dim` points per output dimension for a d_y = 2 reference, with
/// trapezoid weights.
struct Grid2 {
  Matrix points;  // 2 × per_dim²
  std::vector<double> weights;
};

Grid2 grid_2d(const Reference& reference, Index per_dim, double widths) {
  const auto [lo0, hi0] = reference.range(0, widths);
  const auto [lo1, hi1] = reference.range(1, widths);
  const auto axis0 = linspace(lo0, hi0, per_dim), axis1 = linspace(lo1, hi1, per_dim);
  const auto w0 = trapezoid_weights(per_dim, (hi0 - lo0) / static_cast<double>(per_dim - 1));
  const auto w1 = trapezoid_weights(per_dim, (hi1 - lo1) / static_cast<double>(per_dim - 1));
  Grid2 grid{Matrix(2, per_dim * per_dim), {}};
  for (std::size_t a = 0; a < axis0.size(); ++a) {
    for (std::size_t b = 0; b < axis1.size(); ++b) {
      const Index g = static_cast<Index>(a * axis1.size() + b);
      grid.points(0, g) = axis0[a];
      grid.points(1, g) = axis1[b];
      grid.weights.push_back(w0[a] * w1[b]);
    }
  }
  // Steps at most half the narrowest width in each dimension (see the 1-D test).
  EXPECT_LE((hi0 - lo0) / static_cast<double>(per_dim - 1), 0.5 * reference.smallest_sd(0));
  EXPECT_LE((hi1 - lo1) / static_cast<double>(per_dim - 1), 0.5 * reference.smallest_sd(1));
  return grid;
}

TEST(ConditionalMixtureTest, PdfGridEqualsExpLogPdfAndIntegratesToOneVectorOutput) {
  const Case c = vector_case();
  const Grid2 grid = grid_2d(c.reference, 121, 10.0);
  const Index n = grid.points.cols();
  const Matrix densities = c.mixture.pdf_grid(c.x, grid.points);
  ASSERT_EQ(densities.rows(), n);
  for (Index j = 0; j < c.x.cols(); ++j) {
    double integral = 0.0;
    for (Index g = 0; g < n; ++g)
      integral += grid.weights[static_cast<std::size_t>(g)] * densities(g, j);
    EXPECT_NEAR(integral, 1.0, 1e-9) << "x " << j;
    const Vector log_values = c.mixture.log_pdf(repeat(c.x.col(j), n), grid.points);
    for (Index g = 0; g < n; g += 37) {
      const double direct = c.reference.density(c.x.col(j), grid.points.col(g));
      EXPECT_NEAR(densities(g, j), std::exp(log_values(g)), 1e-12 * densities(g, j) + 1e-300);
      EXPECT_NEAR(densities(g, j), direct, 1e-12 * direct + 1e-300);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Moments.

TEST(ConditionalMixtureTest, MeanAndVarianceMatchQuadratureScalarOutput) {
  const Case c = scalar_case();
  const auto [lo, hi] = c.reference.range(0, 12.0);
  const Index n = 2001;
  const auto points = linspace(lo, hi, n);
  const auto weights = trapezoid_weights(n, (hi - lo) / static_cast<double>(n - 1));
  const Matrix mean = c.mixture.mean(c.x);
  const Matrix covariance = c.mixture.covariance(c.x);
  ASSERT_EQ(mean.rows(), 1);
  ASSERT_EQ(covariance.rows(), 1);
  for (Index j = 0; j < c.x.cols(); ++j) {
    const Vector pi = c.reference.probabilities(c.x.col(j));
    double m0 = 0.0, m1 = 0.0, m2 = 0.0;
    for (Index g = 0; g < n; ++g) {
      const double y = points[static_cast<std::size_t>(g)];
      const double p =
          weights[static_cast<std::size_t>(g)] * c.reference.density_given(pi, vec({y}));
      m0 += p;
      m1 += p * y;
      m2 += p * y * y;
    }
    const double expected_mean = m1 / m0;
    const double expected_variance = m2 / m0 - expected_mean * expected_mean;
    // Quadrature is exact to ~1e-12 here (see PdfGrid…); the rest is summation rounding.
    EXPECT_NEAR(mean(0, j), expected_mean, 1e-9 * (1.0 + std::abs(expected_mean))) << "x " << j;
    EXPECT_NEAR(covariance(0, j), expected_variance, 1e-9 * expected_variance) << "x " << j;
  }
}

TEST(ConditionalMixtureTest, MeanAndCovarianceMatchQuadratureVectorOutput) {
  const Case c = vector_case();
  const Grid2 grid = grid_2d(c.reference, 121, 10.0);
  const Matrix mean = c.mixture.mean(c.x);
  const Matrix covariance = c.mixture.covariance(c.x);
  ASSERT_EQ(mean.rows(), 2);
  ASSERT_EQ(covariance.rows(), 4);
  for (Index j = 0; j < c.x.cols(); ++j) {
    const Vector pi = c.reference.probabilities(c.x.col(j));
    double m0 = 0.0;
    Eigen::Vector2d m1 = Eigen::Vector2d::Zero();
    Eigen::Matrix2d m2 = Eigen::Matrix2d::Zero();
    for (Index g = 0; g < grid.points.cols(); ++g) {
      const Eigen::Vector2d y = grid.points.col(g);
      const double p = grid.weights[static_cast<std::size_t>(g)] * c.reference.density_given(pi, y);
      m0 += p;
      m1 += p * y;
      m2 += p * y * y.transpose();
    }
    const Eigen::Vector2d expected_mean = m1 / m0;
    const Eigen::Matrix2d expected_covariance = m2 / m0 - expected_mean * expected_mean.transpose();
    // The off-diagonal term is far from zero: the components' centres are correlated.
    EXPECT_GT(std::abs(expected_covariance(0, 1)),
              0.01 * std::sqrt(expected_covariance(0, 0) * expected_covariance(1, 1)));
    for (Index d = 0; d < 2; ++d) {
      EXPECT_NEAR(mean(d, j), expected_mean(d), 1e-8 * c.reference.y_scale(d)) << "x " << j;
    }
    for (Index a = 0; a < 2; ++a) {
      for (Index b = 0; b < 2; ++b) {
        // Column-major d_y × d_y blocks.
        EXPECT_NEAR(covariance(a + 2 * b, j), expected_covariance(a, b),
                    1e-8 * c.reference.y_scale(a) * c.reference.y_scale(b))
            << "x " << j << " entry (" << a << ", " << b << ")";
      }
    }
  }
}

TEST(ConditionalMixtureTest, SquaredNormMatchesQuadrature) {
  {
    const Case c = scalar_case();
    const auto [lo, hi] = c.reference.range(0, 12.0);
    const Index n = 2001;
    const auto points = linspace(lo, hi, n);
    const auto weights = trapezoid_weights(n, (hi - lo) / static_cast<double>(n - 1));
    const Vector norms = c.mixture.squared_norm(c.x);
    ASSERT_EQ(norms.size(), c.x.cols());
    for (Index j = 0; j < c.x.cols(); ++j) {
      const Vector pi = c.reference.probabilities(c.x.col(j));
      double integral = 0.0;
      for (Index g = 0; g < n; ++g) {
        const double p = c.reference.density_given(pi, vec({points[static_cast<std::size_t>(g)]}));
        integral += weights[static_cast<std::size_t>(g)] * p * p;
      }
      EXPECT_NEAR(norms(j), integral, 1e-10 * integral) << "x " << j;
    }
  }
  {
    const Case c = vector_case();
    // p² has widths s/√2: a finer grid keeps h ≤ (s/√2)/2.
    const Grid2 grid = grid_2d(c.reference, 171, 10.0);
    const Vector norms = c.mixture.squared_norm(c.x);
    for (Index j = 0; j < c.x.cols(); ++j) {
      const Vector pi = c.reference.probabilities(c.x.col(j));
      double integral = 0.0;
      for (Index g = 0; g < grid.points.cols(); ++g) {
        const double p = c.reference.density_given(pi, grid.points.col(g));
        integral += grid.weights[static_cast<std::size_t>(g)] * p * p;
      }
      EXPECT_NEAR(norms(j), integral, 1e-9 * integral) << "x " << j;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sampling.

TEST(ConditionalMixtureTest, SampleMomentsMatchMeanAndCovariance) {
  const Case c = vector_case();
  const Index n = 20000;
  const Matrix x = c.x.leftCols(2);
  const Matrix draws = c.mixture.sample(x, n, 42);
  ASSERT_EQ(draws.rows(), 2);
  ASSERT_EQ(draws.cols(), 2 * n);
  const Matrix mean = c.mixture.mean(x);
  const Matrix covariance = c.mixture.covariance(x);
  for (Index j = 0; j < 2; ++j) {
    const Matrix block = draws.middleCols(j * n, n);
    const Vector sample_mean = block.rowwise().mean();
    const Matrix centred = block.colwise() - sample_mean;
    for (Index d = 0; d < 2; ++d) {
      // Standard error of a mean of n draws: sqrt(Var/n). Five of them: a false alarm has
      // probability about 6e-7 per comparison (and the seed is fixed).
      const double standard_error = std::sqrt(covariance(d + 2 * d, j) / static_cast<double>(n));
      EXPECT_NEAR(sample_mean(d), mean(d, j), 5.0 * standard_error) << "x " << j << " dim " << d;
    }
    for (Index a = 0; a < 2; ++a) {
      for (Index b = 0; b < 2; ++b) {
        const Eigen::ArrayXd products = centred.row(a).array() * centred.row(b).array();
        const double sample_covariance = products.sum() / static_cast<double>(n - 1);
        // Standard error of a sample covariance: sqrt(Var[(y_a − μ_a)(y_b − μ_b)] / n), with the
        // variance estimated from the draws themselves; five standard errors again.
        const double standard_error =
            std::sqrt((products - products.mean()).square().sum() / static_cast<double>(n - 1) /
                      static_cast<double>(n));
        EXPECT_NEAR(sample_covariance, covariance(a + 2 * b, j), 5.0 * standard_error)
            << "x " << j << " entry (" << a << ", " << b << ")";
      }
    }
  }
}

TEST(ConditionalMixtureTest, SampleFollowsTheCdf) {
  // Kolmogorov–Smirnov: with n = 20000 draws, D_n > 1.95/√n has probability ≈ 0.001 under the
  // model (and the seed is fixed).
  const Case c = scalar_case();
  const Index n = 20000;
  const Vector x = c.x.col(2);
  const Matrix draws = c.mixture.sample(x, n, 7);
  std::vector<double> sorted(draws.data(), draws.data() + draws.size());
  std::sort(sorted.begin(), sorted.end());
  const Vector pi = c.reference.probabilities(x);
  double largest = 0.0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = c.reference.cdf_given(pi, sorted[i]);
    largest = std::max({largest, std::abs(f - static_cast<double>(i) / n),
                        std::abs(f - static_cast<double>(i + 1) / n)});
  }
  EXPECT_LT(largest, 1.95 / std::sqrt(static_cast<double>(n)));
}

TEST(ConditionalMixtureTest, SampleIsDeterminedByTheSeed) {
  const Case c = vector_case();
  const Matrix first = c.mixture.sample(c.x, 500, 123);
  const Matrix again = c.mixture.sample(c.x, 500, 123);
  EXPECT_EQ(first, again);
  const Matrix other = c.mixture.sample(c.x, 500, 124);
  EXPECT_EQ((first.array() == other.array()).count(), 0);
  // Input j has its own stream: fewer inputs give the same draws for the ones that remain.
  const Matrix prefix = c.mixture.sample(c.x.leftCols(1), 500, 123);
  EXPECT_EQ(prefix, first.leftCols(500));
  // Equal inputs still get different draws.
  const Matrix twice = c.mixture.sample(repeat(c.x.col(0), 2), 500, 123);
  EXPECT_EQ((twice.leftCols(500).array() == twice.rightCols(500).array()).count(), 0);
}

// ---------------------------------------------------------------------------------------------
// CDF, quantiles, highest-density regions.

TEST(ConditionalMixtureTest, CdfMatchesClosedFormAndIntegralOfPdf) {
  const Case c = scalar_case();
  const auto [lo, hi] = c.reference.range(0, 12.0);
  for (Index j = 0; j < c.x.cols(); ++j) {
    const Vector pi = c.reference.probabilities(c.x.col(j));
    // Composite Simpson from lo (mass below < 1e-32). Its error is at most
    // (b − a) h⁴ max|p⁗| / 180 ≤ 106 · (s/100)⁴ · 1.2/s⁵ / 180 ≈ 3e-9 for the narrowest s = 2.
    const double h = c.reference.smallest_sd(0) / 100.0;
    const double s = c.reference.smallest_sd(0);
    const double bound = (hi - lo) * std::pow(h, 4) * 1.2 / std::pow(s, 5) / 180.0;
    std::vector<double> ys;
    std::vector<double> integrals;
    double integral = 0.0;
    double previous = c.reference.density_given(pi, vec({lo}));
    for (Index step = 1; lo + 2.0 * h * static_cast<double>(step) <= hi; ++step) {
      const double a = lo + 2.0 * h * static_cast<double>(step - 1);
      const double middle = c.reference.density_given(pi, vec({a + h}));
      const double end = c.reference.density_given(pi, vec({a + 2.0 * h}));
      integral += h / 3.0 * (previous + 4.0 * middle + end);
      previous = end;
      if (step % 40 == 0) {
        ys.push_back(a + 2.0 * h);
        integrals.push_back(integral);
      }
    }
    const Matrix y = row(ys);
    const Vector values = c.mixture.cdf(repeat(c.x.col(j), y.cols()), y);
    for (std::size_t i = 0; i < ys.size(); ++i) {
      EXPECT_NEAR(values(static_cast<Index>(i)), integrals[i], bound + 1e-12)
          << "x " << j << " y " << ys[i];
      EXPECT_NEAR(values(static_cast<Index>(i)), c.reference.cdf_given(pi, ys[i]), 1e-14);
    }
  }
}

/// y with F(y) = q by plain bisection of the closed-form CDF.
double bisect_quantile(const Reference& reference, const Vector& pi, double q) {
  auto [lo, hi] = reference.range(0, 15.0);
  for (int iteration = 0; iteration < 300 && hi - lo > 1e-14 * (1.0 + std::abs(lo)); ++iteration) {
    const double middle = 0.5 * (lo + hi);
    (reference.cdf_given(pi, middle) < q ? lo : hi) = middle;
  }
  return 0.5 * (lo + hi);
}

TEST(ConditionalMixtureTest, QuantilesInvertTheCdfAndAgreeWithBisection) {
  for (const Case& c : {scalar_case(), cutoff_case()}) {
    const std::vector<double> probabilities = {1e-6, 0.01, 0.2, 0.5, 0.77, 0.99, 1.0 - 1e-6};
    const Matrix quantiles = c.mixture.quantiles(c.x, probabilities);
    ASSERT_EQ(quantiles.rows(), static_cast<Index>(probabilities.size()));
    ASSERT_EQ(quantiles.cols(), c.x.cols());
    for (Index j = 0; j < c.x.cols(); ++j) {
      const Vector pi = c.reference.probabilities(c.x.col(j));
      const Vector cdf =
          c.mixture.cdf(repeat(c.x.col(j), quantiles.rows()), quantiles.col(j).transpose());
      for (std::size_t r = 0; r < probabilities.size(); ++r) {
        const Index i = static_cast<Index>(r);
        EXPECT_NEAR(cdf(i), probabilities[r], 1e-10) << "x " << j << " q " << probabilities[r];
        // The density at these quantiles exceeds 1e-7 per user unit, so a CDF rounding error of
        // 1e-16 moves the quantile by less than 1e-9.
        EXPECT_NEAR(quantiles(i, j), bisect_quantile(c.reference, pi, probabilities[r]), 1e-8)
            << "x " << j << " q " << probabilities[r];
      }
      // Increasing in q.
      for (Index i = 1; i < quantiles.rows(); ++i) EXPECT_LT(quantiles(i - 1, j), quantiles(i, j));
    }
  }
}

TEST(ConditionalMixtureTest, HighestDensityRegionOfOneGaussianIsMeanPlusMinusZSigma) {
  const ConditionalMixture gaussian = single_gaussian();  // N(−6, 2²) in user units
  const Matrix x = Matrix::Constant(1, 2, 0.3);
  for (const auto& [coverage, z] : {std::pair{0.95, kZ95}, std::pair{0.5, kZ50}}) {
    const auto regions = gaussian.highest_density_regions(x, coverage);
    ASSERT_EQ(regions.size(), 2u);
    for (const auto& region : regions) {
      ASSERT_EQ(region.intervals.size(), 1u);
      EXPECT_NEAR(region.intervals[0].lower, -6.0 - z * 2.0, 1e-9);
      EXPECT_NEAR(region.intervals[0].upper, -6.0 + z * 2.0, 1e-9);
      EXPECT_NEAR(region.density_threshold, normal_pdf(-6.0 + z * 2.0, -6.0, 2.0), 1e-12);
    }
  }
}

TEST(ConditionalMixtureTest, HighestDensityRegionOfTwoSeparatedGaussiansHasTwoIntervals) {
  // Equal weights at ±12 (user units), unit widths: 24 standard deviations apart, so each
  // interval is its component's own 95 % interval ±1.96.
  Matrix centers(1, 2), scales(1, 2);
  centers << -6.0, 6.0;
  scales << 0.5, 0.5;
  const ConditionalMixture mixture(Standardizer::identity(1), Standardizer(vec({0.0}), vec({2.0})),
                                   std::make_shared<const FixedGate>(1, vec({0.0, 0.0})),
                                   MixtureOutputs::gaussian(centers, scales));
  const auto regions = mixture.highest_density_regions(Matrix::Zero(1, 1), 0.95);
  ASSERT_EQ(regions.size(), 1u);
  const auto& intervals = regions[0].intervals;
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_NEAR(intervals[0].lower, -12.0 - kZ95, 1e-8);
  EXPECT_NEAR(intervals[0].upper, -12.0 + kZ95, 1e-8);
  EXPECT_NEAR(intervals[1].lower, 12.0 - kZ95, 1e-8);
  EXPECT_NEAR(intervals[1].upper, 12.0 + kZ95, 1e-8);
  EXPECT_NEAR(regions[0].density_threshold, 0.5 * normal_pdf(kZ95, 0.0, 1.0), 1e-12);
}

TEST(ConditionalMixtureTest, HighestDensityRegionResolvesANarrowComponentBesideAFarNegligibleOne) {
  // Weights (1, 1e-300): the far component adds 1e-300 of probability and never reaches the
  // threshold, so the 95 % region is N(0, 0.5²)'s, ±0.98. The far centre must not coarsen the
  // search grid until the narrow component falls between its points.
  Matrix centers(1, 2), scales(1, 2);
  centers << 0.0, 1e7;
  scales << 0.5, 0.5;
  const ConditionalMixture mixture(
      Standardizer::identity(1), Standardizer::identity(1),
      std::make_shared<const FixedGate>(1, vec({0.0, std::log(1e-300)})),
      MixtureOutputs::gaussian(centers, scales));
  const auto regions = mixture.highest_density_regions(Matrix::Zero(1, 1), 0.95);
  ASSERT_EQ(regions.size(), 1u);
  ASSERT_EQ(regions[0].intervals.size(), 1u);
  EXPECT_NEAR(regions[0].intervals[0].lower, -0.5 * kZ95, 1e-9);
  EXPECT_NEAR(regions[0].intervals[0].upper, 0.5 * kZ95, 1e-9);
}

TEST(ConditionalMixtureTest, HighestDensityRegionsHaveTheCoverageAndThresholdAtTheirEnds) {
  for (const Case& c : {scalar_case(), cutoff_case()}) {
    for (const double coverage : {0.3, 0.5, 0.8, 0.95, 0.99}) {
      const auto regions = c.mixture.highest_density_regions(c.x, coverage);
      ASSERT_EQ(regions.size(), static_cast<std::size_t>(c.x.cols()));
      for (Index j = 0; j < c.x.cols(); ++j) {
        SCOPED_TRACE(testing::Message() << "coverage " << coverage << " x " << j);
        const Vector pi = c.reference.probabilities(c.x.col(j));
        const auto density = [&](double y) { return c.reference.density_given(pi, vec({y})); };
        const auto& region = regions[static_cast<std::size_t>(j)];
        const double threshold = region.density_threshold;
        ASSERT_FALSE(region.intervals.empty());
        double probability = 0.0;
        for (std::size_t i = 0; i < region.intervals.size(); ++i) {
          const Interval& interval = region.intervals[i];
          ASSERT_LT(interval.lower, interval.upper);
          if (i > 0) {
            ASSERT_LT(region.intervals[i - 1].upper, interval.lower);
          }
          probability +=
              c.reference.cdf_given(pi, interval.upper) - c.reference.cdf_given(pi, interval.lower);
          EXPECT_NEAR(density(interval.lower), threshold, 1e-8 * threshold);
          EXPECT_NEAR(density(interval.upper), threshold, 1e-8 * threshold);
        }
        EXPECT_NEAR(probability, coverage, 1e-8);
        // Brute force: on a fine grid, a point is inside exactly when p ≥ threshold (points
        // within 1e-6 of an end are skipped).
        const auto [lo, hi] = c.reference.range(0, 10.0);
        for (const double y : linspace(lo, hi, 20001)) {
          bool inside = false, near_end = false;
          for (const auto& interval : region.intervals) {
            inside = inside || (y >= interval.lower && y <= interval.upper);
            near_end = near_end || std::abs(y - interval.lower) < 1e-6 ||
                       std::abs(y - interval.upper) < 1e-6;
          }
          if (!near_end) {
            ASSERT_EQ(inside, density(y) >= threshold) << "y " << y;
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The edge of the data.

TEST(ConditionalMixtureTest, FarAwayInputGetsItsNearestComponentsWeights) {
  const Case c = scalar_case();
  // Standardised inputs 40, 1e5 and 1e7 units from the data: every exp(−‖z − u‖²/2σ²)
  // underflows to 0 in linear arithmetic, but the log-space weights keep their ratios. In this
  // direction one component dominates (the next weight is e^-12 of it at distance 40 and below
  // e^-10000 further out), so p(y|x) is close to one component's density and nothing in it is
  // large: log p must be as accurate as near the data, whatever the size of
  // log w_k(x) ≈ −‖z‖²/2σ² (about −1e14 at the last distance).
  for (const double distance : {40.0, 1e5, 1e7}) {
    SCOPED_TRACE(distance);
    const Vector z = vec({distance, -0.6 * distance});
    const Vector x = c.reference.x_mean + c.reference.x_scale.cwiseProduct(z);
    const Vector log_w = c.reference.log_weights(z);
    // Linear arithmetic loses every weight here: this is what log space is for.
    for (Index k = 0; k < log_w.size(); ++k) ASSERT_EQ(std::exp(log_w(k)), 0.0);
    // Log-space brute force: π_k = exp(log w_k − max) / Σ exp(log w_l − max).
    Vector pi = (log_w.array() - log_w.maxCoeff()).exp();
    pi /= pi.sum();
    const Matrix probabilities = c.mixture.component_probabilities(x);
    for (Index k = 0; k < pi.size(); ++k) EXPECT_NEAR(probabilities(k, 0), pi(k), 1e-9);
    for (const double y : {0.0, 10.0, 25.0}) {
      const double value = c.mixture.log_pdf(x, Matrix::Constant(1, 1, y))(0);
      ASSERT_TRUE(std::isfinite(value));
      const double expected = std::log(c.reference.density_given(pi, vec({y})));
      EXPECT_NEAR(value, expected, 1e-9 * (1.0 + std::abs(expected))) << "y " << y;
      // The same density through pdf_grid, which normalises the weights first.
      const double grid_value = c.mixture.pdf_grid(x, Matrix::Constant(1, 1, y))(0, 0);
      EXPECT_NEAR(value, std::log(grid_value), 1e-9 * (1.0 + std::abs(expected))) << "y " << y;
    }
    EXPECT_TRUE(c.mixture.mean(x).allFinite());
    EXPECT_TRUE(c.mixture.covariance(x).allFinite());
    EXPECT_TRUE(c.mixture.squared_norm(x).allFinite());
    EXPECT_TRUE(c.mixture.quantiles(x, {0.1, 0.9}).allFinite());
    EXPECT_TRUE(c.mixture.cdf(x, Matrix::Constant(1, 1, 10.0)).allFinite());
    EXPECT_TRUE(c.mixture.sample(x, 10, 1).allFinite());
  }
}

TEST(ConditionalMixtureTest, InputsThatOverflowWhenStandardisedNeverGiveNaN) {
  // x is finite but (x − mean)/scale overflows to ±∞ with scale 0.7 < 1. The answer may be an
  // exception of a documented type or a number, never NaN (docs/design.md, "Errors and bad input").
  const Case c = scalar_case();
  const Vector x = vec({1.7e308, -1.0});
  ASSERT_TRUE(x.allFinite());
  try {
    const Vector value = c.mixture.log_pdf(x, Matrix::Constant(1, 1, 10.0));
    EXPECT_FALSE(std::isnan(value(0))) << "log_pdf is NaN";
    const Matrix probabilities = c.mixture.component_probabilities(x);
    EXPECT_FALSE(probabilities.hasNaN()) << probabilities.transpose();
  } catch (const Error&) {
    SUCCEED();
  }
}

TEST(ConditionalMixtureTest, AllWeightsZeroFallsBackToTheMarginalMixture) {
  const Case c = cutoff_case();
  // Hand-computed marginal mixture Σ m_k N(y; centre_k, scale_k²) / Σ m_k in user units
  // (centres 3 + 0.5 c_k, scales 0.5 s_k).
  const double masses[] = {1.0, 2.0, 5.0};
  const double user_centres[] = {2.5, 3.0, 3.75};
  const double user_scales[] = {0.2, 0.35, 0.25};
  const auto marginal = [&](double y) {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k)
      sum += masses[k] / 8.0 * normal_pdf(y, user_centres[k], user_scales[k]);
    return sum;
  };
  for (const Index j : {Index{1}, Index{2}}) {  // z = 2 and z ≈ 5e5, both beyond the cutoff
    const Vector x = c.x.col(j);
    const Matrix pi = c.mixture.component_probabilities(x);
    EXPECT_NEAR(pi(0, 0), 1.0 / 8.0, 1e-15);
    EXPECT_NEAR(pi(1, 0), 2.0 / 8.0, 1e-15);
    EXPECT_NEAR(pi(2, 0), 5.0 / 8.0, 1e-15);
    for (const double y : {2.0, 3.0, 3.6, 4.5}) {
      const double value = c.mixture.log_pdf(x, Matrix::Constant(1, 1, y))(0);
      EXPECT_NEAR(value, std::log(marginal(y)), 1e-12) << "y " << y;
      EXPECT_NEAR(c.mixture.pdf_grid(x, Matrix::Constant(1, 1, y))(0, 0), marginal(y),
                  1e-12 * marginal(y));
    }
    const double mean = (2.5 * 1.0 + 3.0 * 2.0 + 3.75 * 5.0) / 8.0;
    EXPECT_NEAR(c.mixture.mean(x)(0, 0), mean, 1e-14);
    double second = 0.0;
    for (int k = 0; k < 3; ++k)
      second +=
          masses[k] / 8.0 * (user_scales[k] * user_scales[k] + user_centres[k] * user_centres[k]);
    EXPECT_NEAR(c.mixture.covariance(x)(0, 0), second - mean * mean, 1e-13);
  }
  // Before the cutoff the gate's own weights m_k e^{a_k z} apply (z = −1 here).
  const Matrix pi = c.mixture.component_probabilities(c.x.col(0));
  const double w[] = {1.0 * std::exp(-1.0), 2.0 * std::exp(0.5), 5.0 * std::exp(-0.3)};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(pi(k, 0), w[k] / (w[0] + w[1] + w[2]), 1e-15);
}

TEST(ConditionalMixtureTest, LscdeWithAllCoefficientsZeroIsTheEqualWeightMixture) {
  LscdeBasis basis;
  basis.centers_x = Matrix(1, 3);
  basis.centers_x << -1.0, 0.0, 2.0;
  basis.centers_y = Matrix(1, 3);
  basis.centers_y << -0.5, 0.5, 1.0;
  basis.sigma = 0.6;
  const Standardizer x_scaling(vec({3.0}), vec({2.0})), y_scaling(vec({1.0}), vec({0.25}));
  const ConditionalMixture mixture =
      make_lscde_mixture(x_scaling, y_scaling, basis, Vector::Zero(3));
  ASSERT_EQ(mixture.n_components(), 3);
  for (const double x : {3.0, -40.0}) {
    for (const double y : {0.8, 1.1}) {
      double expected = 0.0;
      for (Index k = 0; k < 3; ++k)
        expected += normal_pdf(y, 1.0 + 0.25 * basis.centers_y(0, k), 0.25 * 0.6) / 3.0;
      EXPECT_NEAR(mixture.log_pdf(Matrix::Constant(1, 1, x), Matrix::Constant(1, 1, y))(0),
                  std::log(expected), 1e-12);
    }
  }
}

TEST(ConditionalMixtureTest, MakeLscdeMixtureDropsZeroCoefficients) {
  LscdeBasis basis;
  basis.centers_x = Matrix(2, 4);
  basis.centers_x << -1.0, 0.0, 2.0, 0.5,  //
      0.3, -0.2, 0.1, 1.0;
  basis.centers_y = Matrix(1, 4);
  basis.centers_y << -0.5, 0.5, 1.0, 0.0;
  basis.sigma = 0.7;
  const Vector alpha = vec({0.5, 0.0, 1.5, 0.0});
  const Vector x_mean = vec({1.0, -1.0}), x_scale = vec({2.0, 0.5});
  const Vector y_mean = vec({4.0}), y_scale = vec({3.0});
  const ConditionalMixture mixture = make_lscde_mixture(
      Standardizer(x_mean, x_scale), Standardizer(y_mean, y_scale), basis, alpha);
  ASSERT_EQ(mixture.n_components(), 2);
  EXPECT_EQ(mixture.centers()(0, 0), -0.5);
  EXPECT_EQ(mixture.centers()(0, 1), 1.0);
  EXPECT_EQ(mixture.scales()(0, 0), 0.7);
  // The full basis, zero coefficients included, by hand.
  const Reference full{x_mean,
                       x_scale,
                       y_mean,
                       y_scale,
                       basis.centers_y,
                       Matrix::Constant(1, 4, 0.7),
                       lscde_log_weights(basis.centers_x, alpha, 0.7),
                       alpha};
  for (const auto& [x0, x1] : {std::pair{1.0, -1.0}, std::pair{4.0, 0.0}, std::pair{-3.0, -2.0}}) {
    const Vector x = vec({x0, x1});
    for (const double y : {-2.0, 4.0, 7.5}) {
      const double expected = std::log(full.density(x, vec({y})));
      EXPECT_NEAR(mixture.log_pdf(x, Matrix::Constant(1, 1, y))(0), expected,
                  1e-12 * (1.0 + std::abs(expected)));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(ConditionalMixtureTest, BadInputsThrowDocumentedTypes) {
  const Case scalar = scalar_case();
  const Case vector = vector_case();
  const ConditionalMixture& m = scalar.mixture;
  const Matrix x = scalar.x;                      // 2 × 4
  const Matrix y = Matrix::Constant(1, 4, 10.0);  // 1 × 4
  const Matrix x_wrong = Matrix::Zero(3, 4);
  const Matrix y_wrong = Matrix::Zero(2, 4);
  Matrix x_nan = x;
  x_nan(1, 2) = std::nan("");
  Matrix x_inf = x;
  x_inf(0, 0) = -INFINITY;
  Matrix y_nan = y;
  y_nan(0, 3) = std::nan("");

  // Wrong input dimension: every query.
  EXPECT_THROW(m.log_pdf(x_wrong, y), InvalidArgument);
  EXPECT_THROW(m.pdf_grid(x_wrong, y), InvalidArgument);
  EXPECT_THROW(m.component_probabilities(x_wrong), InvalidArgument);
  EXPECT_THROW(m.sample(x_wrong, 3, 1), InvalidArgument);
  EXPECT_THROW(m.mean(x_wrong), InvalidArgument);
  EXPECT_THROW(m.covariance(x_wrong), InvalidArgument);
  EXPECT_THROW(m.squared_norm(x_wrong), InvalidArgument);
  EXPECT_THROW(m.cdf(x_wrong, y), InvalidArgument);
  EXPECT_THROW(m.quantiles(x_wrong, {0.5}), InvalidArgument);
  EXPECT_THROW(m.highest_density_regions(x_wrong, 0.9), InvalidArgument);
  // Wrong output dimension.
  EXPECT_THROW(m.log_pdf(x, y_wrong), InvalidArgument);
  EXPECT_THROW(m.pdf_grid(x, y_wrong), InvalidArgument);
  EXPECT_THROW(m.cdf(x, y_wrong), InvalidArgument);
  // Different numbers of samples.
  EXPECT_THROW(m.log_pdf(x, y.leftCols(3)), InvalidArgument);
  EXPECT_THROW(m.cdf(x.leftCols(2), y), InvalidArgument);
  // Non-finite values.
  for (const Matrix* bad : {&x_nan, &x_inf}) {
    EXPECT_THROW(m.log_pdf(*bad, y), DataError);
    EXPECT_THROW(m.pdf_grid(*bad, y), DataError);
    EXPECT_THROW(m.component_probabilities(*bad), DataError);
    EXPECT_THROW(m.sample(*bad, 3, 1), DataError);
    EXPECT_THROW(m.mean(*bad), DataError);
    EXPECT_THROW(m.covariance(*bad), DataError);
    EXPECT_THROW(m.squared_norm(*bad), DataError);
    EXPECT_THROW(m.cdf(*bad, y), DataError);
    EXPECT_THROW(m.quantiles(*bad, {0.5}), DataError);
    EXPECT_THROW(m.highest_density_regions(*bad, 0.9), DataError);
  }
  EXPECT_THROW(m.log_pdf(x, y_nan), DataError);
  EXPECT_THROW(m.pdf_grid(x, y_nan), DataError);
  EXPECT_THROW(m.cdf(x, y_nan), DataError);
  // Empty grid, no draws.
  EXPECT_THROW(m.pdf_grid(x, Matrix(1, 0)), InvalidArgument);
  EXPECT_THROW(m.sample(x, 0, 1), InvalidArgument);
  // Probabilities outside (0, 1).
  for (const double q : {0.0, 1.0, -0.1, 1.5, std::nan("")}) {
    EXPECT_THROW(m.quantiles(x, {0.5, q}), InvalidArgument) << q;
    EXPECT_THROW(m.highest_density_regions(x, q), InvalidArgument) << q;
  }
  EXPECT_THROW(m.quantiles(x, {}), InvalidArgument);
  // One-dimensional queries on d_y = 2.
  const Matrix x2 = vector.x;
  EXPECT_THROW(vector.mixture.cdf(x2, Matrix::Zero(2, x2.cols())), InvalidArgument);
  EXPECT_THROW(vector.mixture.cdf(x2, Matrix::Zero(1, x2.cols())), InvalidArgument);
  EXPECT_THROW(vector.mixture.quantiles(x2, {0.5}), InvalidArgument);
  EXPECT_THROW(vector.mixture.highest_density_regions(x2, 0.9), InvalidArgument);
}

TEST(ConditionalMixtureTest, InconsistentConstructionIsInvalidArgument) {
  const auto gate = std::make_shared<const FixedGate>(2, vec({0.0, 0.0}));
  const Standardizer xs = Standardizer::identity(2), ys = Standardizer::identity(1);
  const Matrix centers = Matrix::Zero(1, 2), scales = Matrix::Ones(1, 2);
  const auto build = [](const Standardizer& x_scaling, const Standardizer& y_scaling,
                        std::shared_ptr<const ConditionalGate> mixture_gate,
                        const Matrix& mixture_centers, const Matrix& mixture_scales) {
    return ConditionalMixture(x_scaling, y_scaling, std::move(mixture_gate),
                              MixtureOutputs::gaussian(mixture_centers, mixture_scales));
  };
  EXPECT_NO_THROW(build(xs, ys, gate, centers, scales));
  EXPECT_THROW(build(xs, ys, nullptr, centers, scales), InvalidArgument);
  EXPECT_THROW(build(Standardizer::identity(3), ys, gate, centers, scales), InvalidArgument);
  EXPECT_THROW(build(xs, Standardizer::identity(2), gate, centers, scales), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, Matrix::Zero(1, 3), Matrix::Ones(1, 3)), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, centers, Matrix::Ones(1, 3)), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, centers, Matrix::Zero(1, 2)), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, centers, -Matrix::Ones(1, 2)), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, centers, Matrix::Constant(1, 2, INFINITY)), InvalidArgument);
  EXPECT_THROW(build(xs, ys, gate, Matrix::Constant(1, 2, std::nan("")), scales), DataError);
  const auto dead = std::make_shared<const FixedGate>(2, Vector::Constant(2, -INFINITY));
  EXPECT_THROW(build(xs, ys, dead, centers, scales), InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Serialisation.

void expect_identical_predictions(const ConditionalMixture& a, const ConditionalMixture& b,
                                  const Matrix& x) {
  ASSERT_EQ(a.output_dim(), b.output_dim());
  Rng rng(99);
  const Matrix t = test::normal_matrix(a.output_dim(), x.cols(), rng);
  const Matrix y = a.y_scaling().inverse_transform(t);
  EXPECT_EQ(a.log_pdf(x, y), b.log_pdf(x, y));
  EXPECT_EQ(a.pdf_grid(x, y), b.pdf_grid(x, y));
  EXPECT_EQ(a.component_probabilities(x), b.component_probabilities(x));
  EXPECT_EQ(a.mean(x), b.mean(x));
  EXPECT_EQ(a.covariance(x), b.covariance(x));
  EXPECT_EQ(a.squared_norm(x), b.squared_norm(x));
  EXPECT_EQ(a.sample(x, 5, 3), b.sample(x, 5, 3));
  if (a.output_dim() == 1) {
    EXPECT_EQ(a.cdf(x, y), b.cdf(x, y));
    EXPECT_EQ(a.quantiles(x, {0.1, 0.5, 0.9}), b.quantiles(x, {0.1, 0.5, 0.9}));
  }
}

TEST(ConditionalMixtureTest, JsonRoundTripGivesBitIdenticalPredictions) {
  for (const Case& c : {scalar_case(), vector_case()}) {
    const std::string text = c.mixture.to_json().dump();
    const ConditionalMixture back =
        ConditionalMixture::from_json(nlohmann::json::parse(text), read_builtin_gate);
    EXPECT_EQ(back.gate().kind(), "lscde");
    EXPECT_EQ(back.centers(), c.mixture.centers());
    EXPECT_EQ(back.scales(), c.mixture.scales());
    EXPECT_EQ(back.x_scaling().mean(), c.mixture.x_scaling().mean());
    EXPECT_EQ(back.y_scaling().scale(), c.mixture.y_scaling().scale());
    expect_identical_predictions(c.mixture, back, c.x);
  }
}

TEST(ConditionalMixtureTest, FromJsonUsesTheGateReader) {
  Matrix centers(1, 2), scales(1, 2);
  centers << -0.5, 0.75;
  scales << 0.3, 0.9;
  const ConditionalMixture mixture(
      Standardizer(vec({1.0}), vec({2.0})), Standardizer(vec({5.0}), vec({0.1})),
      std::make_shared<const FixedGate>(1, vec({std::log(0.3), std::log(0.7)})),
      MixtureOutputs::gaussian(centers, scales));
  const nlohmann::json document = nlohmann::json::parse(mixture.to_json().dump());
  // The built-in reader does not know test gates.
  EXPECT_THROW(ConditionalMixture::from_json(document, read_builtin_gate), ModelFormatError);
  const GateReader reader =
      [](const std::string& kind,
         const nlohmann::json& parameters) -> std::shared_ptr<const ConditionalGate> {
    if (kind != "test_fixed") return read_builtin_gate(kind, parameters);
    const auto weights = parameters.at("log_weights").get<std::vector<double>>();
    return std::make_shared<const FixedGate>(
        parameters.at("input_dim").get<Index>(),
        Eigen::Map<const Vector>(weights.data(), static_cast<Index>(weights.size())));
  };
  const ConditionalMixture back = ConditionalMixture::from_json(document, reader);
  expect_identical_predictions(mixture, back, Matrix::Constant(1, 3, 0.5));
}

ConditionalModel example_model() {
  FitReport report;
  report.method = "lscde";
  report.hyperparameters = {{"sigma", 0.8}, {"regularization", 0.1}};
  report.statistics = {{"n_train", 200.0}};
  report.fit_seconds = 0.125;
  report.warnings = {"a warning"};
  CvTable table;
  table.parameter_names = {"sigma", "regularization"};
  table.candidates = Matrix(2, 2);
  table.candidates << 0.1, 0.01, 0.8, 0.1;
  table.mean_loss = vec({1.0 / 3.0, -0.25});
  table.standard_error = vec({0.01, 0.02});
  table.loss = "kl";
  table.best = 1;
  report.cross_validation = table;
  return ConditionalModel{scalar_case().mixture, {"speed", "load"}, {"power"}, report, {}};
}

TEST(ConditionalMixtureTest, ModelFileRoundTripIsBitIdentical) {
  const ConditionalModel model = example_model();
  const std::string path = test::temporary_path("model.json");
  save_conditional_model(model, path);
  // Saving again over the existing file replaces it.
  save_conditional_model(model, path);
  const ConditionalModel loaded = load_conditional_model(path);
  EXPECT_EQ(loaded.x_names, model.x_names);
  EXPECT_EQ(loaded.y_names, model.y_names);
  EXPECT_EQ(loaded.report.method, "lscde");
  EXPECT_EQ(loaded.report.hyperparameters, model.report.hyperparameters);
  EXPECT_EQ(loaded.report.warnings, model.report.warnings);
  ASSERT_TRUE(loaded.report.cross_validation.has_value());
  EXPECT_EQ(loaded.report.cross_validation->mean_loss, model.report.cross_validation->mean_loss);
  EXPECT_EQ(loaded.report.cross_validation->best, 1);
  expect_identical_predictions(model.mixture, loaded.mixture, scalar_case().x);
  std::filesystem::remove(path);
  EXPECT_THROW(load_conditional_model(path), IoError);
  EXPECT_THROW(save_conditional_model(model, test::temporary_path("no_such_dir") + "/model.json"),
               IoError);
}

/// Writes `text` to a fresh file and loads it as a model.
void load_text(const std::string& text) {
  const std::string path = test::temporary_path("corrupt.json");
  {
    std::ofstream file(path);
    file << text;
  }
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::filesystem::remove(path); }
  } cleanup{path};
  load_conditional_model(path);
}

TEST(ConditionalMixtureTest, CorruptedModelFilesAreModelFormatErrors) {
  const nlohmann::json valid = conditional_model_to_json(example_model());
  const std::string text = valid.dump(1);
  ASSERT_NO_THROW(load_text(text));

  using Edit = std::function<void(nlohmann::json&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"format", [](nlohmann::json& d) { d["format"] = "something-else"; }},
      {"no format", [](nlohmann::json& d) { d.erase("format"); }},
      {"a future version", [](nlohmann::json& d) { d["version"] = kModelFileVersion + 1; }},
      {"version 0", [](nlohmann::json& d) { d["version"] = 0; }},
      {"version -1", [](nlohmann::json& d) { d["version"] = -1; }},
      {"version string", [](nlohmann::json& d) { d["version"] = "1"; }},
      {"version float", [](nlohmann::json& d) { d["version"] = 1.5; }},
      {"no version", [](nlohmann::json& d) { d.erase("version"); }},
      {"shape", [](nlohmann::json& d) { d["shape"] = "diagonal_mixture"; }},
      {"no shape", [](nlohmann::json& d) { d.erase("shape"); }},
      {"no model", [](nlohmann::json& d) { d.erase("model"); }},
      {"no gate", [](nlohmann::json& d) { d["model"].erase("gate"); }},
      {"no gate kind", [](nlohmann::json& d) { d["model"]["gate"].erase("kind"); }},
      {"unknown gate kind", [](nlohmann::json& d) { d["model"]["gate"]["kind"] = "teleport"; }},
      {"gate kind not a string", [](nlohmann::json& d) { d["model"]["gate"]["kind"] = 3; }},
      {"no sigma", [](nlohmann::json& d) { d["model"]["gate"].erase("sigma"); }},
      {"sigma string", [](nlohmann::json& d) { d["model"]["gate"]["sigma"] = "0.8"; }},
      {"negative sigma", [](nlohmann::json& d) { d["model"]["gate"]["sigma"] = -0.8; }},
      {"negative alpha", [](nlohmann::json& d) { d["model"]["gate"]["alpha"][0] = -1.0; }},
      {"alpha count", [](nlohmann::json& d) { d["model"]["gate"]["alpha"].erase(0); }},
      {"no centres", [](nlohmann::json& d) { d["model"].erase("centers"); }},
      {"centres size", [](nlohmann::json& d) { d["model"]["centers"]["data"].erase(0); }},
      {"centres rows", [](nlohmann::json& d) { d["model"]["centers"]["rows"] = -1; }},
      {"centre not a number", [](nlohmann::json& d) { d["model"]["centers"]["data"][0] = "x"; }},
      {"scales shape",
       [](nlohmann::json& d) {
         d["model"]["scales"] = {{"rows", 2}, {"cols", 2}, {"data", {1, 1, 1, 1}}};
       }},
      {"negative scale", [](nlohmann::json& d) { d["model"]["scales"]["data"][1] = -0.5; }},
      {"zero scale", [](nlohmann::json& d) { d["model"]["scales"]["data"][1] = 0.0; }},
      {"no x scaling", [](nlohmann::json& d) { d["model"].erase("x_scaling"); }},
      {"y scaling length",
       [](nlohmann::json& d) {
         d["model"]["y_scaling"]["scale"] = {1.0, 2.0};
       }},
      {"x scale zero", [](nlohmann::json& d) { d["model"]["x_scaling"]["scale"][0] = 0.0; }},
      {"no variables", [](nlohmann::json& d) { d.erase("variables"); }},
      {"variable count", [](nlohmann::json& d) { d["variables"]["x"] = {"only_one"}; }},
      {"variable type", [](nlohmann::json& d) { d["variables"]["y"] = {1}; }},
      {"no fit", [](nlohmann::json& d) { d.erase("fit"); }},
      {"fit method type", [](nlohmann::json& d) { d["fit"]["method"] = 5; }},
      {"cv table", [](nlohmann::json& d) { d["fit"]["cross_validation"].erase("mean_loss"); }},
      {"root is an array",
       [](nlohmann::json& d) {
         d = nlohmann::json::array({1, 2});
       }},
  };
  for (const auto& [name, edit] : edits) {
    SCOPED_TRACE(name);
    nlohmann::json document = valid;
    edit(document);
    EXPECT_THROW(load_text(document.dump()), ModelFormatError);
  }
  // Not JSON at all, empty, or cut short.
  EXPECT_THROW(load_text("this is not json"), ModelFormatError);
  EXPECT_THROW(load_text(""), ModelFormatError);
  EXPECT_THROW(load_text(text.substr(0, text.size() / 2)), ModelFormatError);
}

TEST(ConditionalMixtureTest, ModelFileWithNonStringFormatIsModelFormatError) {
  nlohmann::json document = conditional_model_to_json(example_model());
  document["format"] = 1;
  EXPECT_THROW(load_text(document.dump()), ModelFormatError);
}

TEST(ConditionalMixtureTest, ModelFileWithOverflowingNumberIsModelFormatError) {
  // 1e999 is valid JSON syntax but no double; the loader must say "bad model file".
  nlohmann::json document = conditional_model_to_json(example_model());
  document["model"]["centers"]["data"][0] = 123.5;
  std::string text = document.dump();
  const auto at = text.find("123.5");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "1e999");
  EXPECT_THROW(load_text(text), ModelFormatError);
}

TEST(ConditionalMixtureTest, ModelFileWithHugeVersionIsRefused) {
  // 2³² + 1 must not be read as version 1 by a narrowing conversion.
  nlohmann::json document = conditional_model_to_json(example_model());
  document["version"] = std::int64_t{4294967297};
  EXPECT_THROW(load_text(document.dump()), ModelFormatError);
}

}  // namespace
}  // namespace cdens

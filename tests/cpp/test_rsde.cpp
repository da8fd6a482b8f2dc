// Tests of density/rsde.hpp: the matrices of eqs. (14)–(15) against quadrature and direct sums,
// the ISE criterion of the fitted weights against a brute-force computation, and the width
// selection.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/rsde.hpp"
#include "density/mnqp.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

double gauss(double x, double mean, double sd) {
  return std::exp(-0.5 * std::pow((x - mean) / sd, 2)) / (std::sqrt(2 * kPi) * sd);
}

/// A bimodal 1-D sample in the user's units.
Matrix bimodal(Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix x(1, n);
  for (Index j = 0; j < n; ++j) {
    x(0, j) = (rng.uniform() < 0.4 ? -2.0 : 3.0) + 0.7 * rng.normal() + 10.0;
  }
  return x;
}

TEST(Rsde, ProblemMatricesMatchQuadratureAndDirectSums) {
  Rng rng(1);
  const Matrix z = test::normal_matrix(1, 6, rng);
  const double gamma = 0.4;
  const RsdeProblem problem = rsde_problem(z, gamma);
  const int points = 20001;
  const double low = -10.0, high = 10.0, step = (high - low) / (points - 1);
  for (Index i = 0; i < 6; ++i) {
    for (Index j = 0; j < 6; ++j) {
      // g_ij = ∫ G_γ(x, z_i) G_γ(x, z_j) dx (eq. 14), by the trapezoid rule.
      double integral = 0.0;
      for (int p = 0; p < points; ++p) {
        const double x = low + step * p;
        const double weight = (p == 0 || p == points - 1) ? 0.5 : 1.0;
        integral += weight * gauss(x, z(0, i), gamma) * gauss(x, z(0, j), gamma);
      }
      EXPECT_NEAR(problem.g(i, j), integral * step, 1e-10);
    }
    double parzen = 0.0;  // eq. (15), own kernel included
    for (Index k = 0; k < 6; ++k) parzen += gauss(z(0, i), z(0, k), gamma) / 6.0;
    EXPECT_NEAR(problem.parzen(i), parzen, 1e-14);
  }
}

TEST(Rsde, ObjectiveIsTheIseCriterionComputedByBruteForce) {
  const Matrix x = bimodal(60, 2);
  RsdeOptions options;
  options.bandwidth = {0.3};
  const DensityFit fit = fit_rsde(x, options);
  // In standardised units, ½ ∫ p̂² − (1/N) Σ_k p̂(z_k) (eqs. 13, 16–17). Here by quadrature in the
  // user's units: ∫ p̂_std² dz = scale ∫ p̂_user² dx and p̂_std(z) = scale p̂_user(x).
  const double scale = test::sample_scale(x)(0);
  const int points = 40001;
  const double low = x.minCoeff() - 5.0, high = x.maxCoeff() + 5.0;
  const double step = (high - low) / (points - 1);
  Matrix grid(1, points);
  for (int p = 0; p < points; ++p) grid(0, p) = low + step * p;
  const Vector squared = fit.model.pdf(grid).array().square();
  const double square_norm =
      scale * step * (squared.sum() - 0.5 * (squared(0) + squared(points - 1)));
  const double mean_density = scale * fit.model.pdf(x).mean();
  const double expected = 0.5 * square_norm - mean_density;
  EXPECT_NEAR(fit.report.statistics.at("ise_objective"), expected, 1e-9 * std::abs(expected));
  EXPECT_LT(fit.model.n_components(), 60);  // sparse
  EXPECT_EQ(fit.report.statistics.at("n_kernels"), fit.model.n_components());
}

TEST(Rsde, WeightsBeatThoseOfTheParzenWindowAndRandomSimplexPoints) {
  const Matrix x = bimodal(50, 3);
  RsdeOptions options;
  options.bandwidth = {0.4};
  options.mnqp.prune_threshold = 0.0;
  const DensityFit fit = fit_rsde(x, options);
  const Matrix z = (x.array() - x.mean()) / test::sample_scale(x)(0);
  const RsdeProblem problem = rsde_problem(z, 0.4);
  const double optimum = fit.report.statistics.at("ise_objective");
  const Vector parzen = Vector::Constant(50, 1.0 / 50);
  EXPECT_LT(optimum, mnqp_objective(problem.g, problem.parzen, parzen));
  Rng rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    Vector beta(50);
    for (Index i = 0; i < 50; ++i) beta(i) = -std::log(1.0 - rng.uniform());  // Dirichlet(1)
    beta /= beta.sum();
    EXPECT_LE(optimum, mnqp_objective(problem.g, problem.parzen, beta) + 1e-12);
  }
}

TEST(Rsde, CrossValidationChoosesTheBestWidth) {
  const Matrix x = bimodal(60, 5);
  RsdeOptions options;
  options.bandwidth = {0.1, 0.3, 0.6, 1.5};
  options.mnqp.max_iterations = 2000;
  const DensityFit fit = fit_rsde(x, options);
  const CvTable& table = *fit.report.cross_validation;
  ASSERT_EQ(table.candidates.rows(), 4);
  Index best = 0;
  table.mean_loss.minCoeff(&best);
  EXPECT_EQ(fit.report.hyperparameters.at("bandwidth"),
            options.bandwidth[static_cast<std::size_t>(best)]);
  std::string first;
  for (int threads : {1, 2, 3}) {
    const DensityFit again = fit_rsde(x, options, FitContext{}.with_threads(threads));
    const std::string fingerprint =
        again.model.to_json().dump() + again.report.cross_validation->to_json().dump();
    if (threads == 1) {
      first = fingerprint;
    } else {
      EXPECT_TRUE(fingerprint == first) << threads << " threads";
    }
  }
}

TEST(Rsde, RejectsBadInput) {
  Matrix x = bimodal(20, 6);
  x(0, 3) = INFINITY;
  EXPECT_THROW(fit_rsde(x), DataError);
  EXPECT_THROW(fit_rsde(Matrix::Constant(1, 10, 2.0)), DataError);
  RsdeOptions options;
  options.bandwidth = {0.0};
  EXPECT_THROW(fit_rsde(bimodal(20, 6), options), InvalidArgument);
  options.bandwidth = {0.2, 0.5};
  options.folds = 50;
  EXPECT_THROW(fit_rsde(bimodal(20, 6), options), InvalidArgument);
}

}  // namespace
}  // namespace cdens

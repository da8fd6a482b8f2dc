// Tests of density/skd.hpp: the Parzen target against the kernel columns; one OFR-LOO pass is
// greedy forward selection by explicit leave-one-out refits; the fitted SKD is a sparse mixture
// close to a known density and does not depend on the units of the data.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/skd.hpp"
#include "cdens/evaluation/scores.hpp"
#include "density/fixed_kernels.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(Skd, ParzenTargetIsTheMeanOfTheKernelColumns) {
  // t_k = (1/N) Σ_j G_γ(z_k, z_j) (eq. 15) by the kernel-sum engine against the whole N × N
  // block of kernel columns, averaged; the same on 1 and 3 threads.
  Rng rng(5);
  const Matrix z = 3.0 * test::normal_matrix(2, 700, rng);
  const Vector brute = isotropic_kernel_columns(z, z, 0.4).rowwise().mean();
  const Vector target = parzen_at_samples(z, 0.4);
  EXPECT_LT(((target - brute).array() / brute.array()).abs().maxCoeff(), 1e-12);
  EXPECT_TRUE(parzen_at_samples(z, 0.4, 3) == target);
  EXPECT_THROW(parzen_at_samples(z, 0.0), InvalidArgument);
}

TEST(Skd, OnePassIsGreedySelectionByExplicitLeaveOneOutRefits) {
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    Rng rng(seed);
    const Matrix z = test::normal_matrix(1, 24, rng);
    const Vector target = parzen_at_samples(z, 0.3);
    const double width = 0.5;
    SkdOptions options;
    options.regularization_passes = 1;
    options.initial_regularization = 1e-12;  // negligible against wᵀw ~ 1: plain least squares
    const SkdSelection selection = select_skd_kernels(z, target, width, options);

    // Brute force: at each stage the kernel whose addition gives the smallest mean squared
    // error of explicit leave-one-out least-squares refits; stop when it does not fall (eq. 38).
    const Matrix phi = isotropic_kernel_columns(z, z, width);
    std::vector<Index> chosen;
    double current = target.squaredNorm() / 24.0;  // J_0
    while (true) {
      double best_value = std::numeric_limits<double>::infinity();
      Index best = -1;
      for (Index j = 0; j < 24; ++j) {
        if (std::find(chosen.begin(), chosen.end(), j) != chosen.end()) continue;
        std::vector<Index> columns = chosen;
        columns.push_back(j);
        const double value = test::explicit_loo_mse(phi(Eigen::all, columns), target, 0.0);
        if (value < best_value) {
          best_value = value;
          best = j;
        }
      }
      if (best_value >= current) break;
      chosen.push_back(best);
      current = best_value;
    }
    EXPECT_EQ(selection.selected, chosen) << "seed " << seed;
    EXPECT_NEAR(selection.loo_mse, current, 1e-8 * current) << "seed " << seed;
  }
}

TEST(Skd, FitsASparseMixtureCloseToTheTrueDensity) {
  Rng rng(5);
  Matrix x = test::normal_matrix(1, 300, rng);
  x = (2.0 * x.array() + 7.0).matrix();  // N(7, 2²)
  SkdOptions options;
  options.bandwidth = {0.2, 0.4, 0.8};
  const DensityFit fit = fit_skd(x, options);
  ASSERT_TRUE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.method, "skd");
  const Index kernels = fit.model.n_components();
  EXPECT_EQ(static_cast<double>(kernels), fit.report.statistics.at("n_kernels"));
  EXPECT_LE(kernels, static_cast<Index>(fit.report.statistics.at("n_selected")));
  EXPECT_LT(kernels, 45);  // sparse: under 15 % of the 300 points
  EXPECT_NEAR(fit.model.weights().sum(), 1.0, 1e-9);
  EXPECT_TRUE((fit.model.weights().array() > 0.0).all());
  // L1 test error (eq. 47) against the true density on 2,000 fresh points. A Parzen window at
  // N = 300 has L1 ≈ 0.007 for this density (its MISE falls like N^{−4/5}); 0.02 allows a
  // sparse estimate three times that.
  Matrix test_points = test::normal_matrix(1, 2000, rng);
  Vector truth(2000);
  for (Index k = 0; k < 2000; ++k) {
    truth(k) = std::exp(-0.5 * test_points(0, k) * test_points(0, k)) / (std::sqrt(2 * kPi) * 2.0);
  }
  test_points = (2.0 * test_points.array() + 7.0).matrix();
  EXPECT_LT(l1_test_error(fit.model, test_points, truth), 0.02);
}

TEST(Skd, DoesNotDependOnTheUnitsOfTheData) {
  Rng rng(8);
  const Matrix x = test::normal_matrix(2, 80, rng);
  SkdOptions options;
  options.bandwidth = {0.6};
  options.target_bandwidth = 0.4;
  const DensityFit fit = fit_skd(x, options);
  const Matrix scaled = (x.array() * 10.0 + 3.0).matrix();
  const DensityFit scaled_fit = fit_skd(scaled, options);
  const Vector difference = scaled_fit.model.log_pdf(scaled) - fit.model.log_pdf(x);
  EXPECT_LT((difference.array() + 2.0 * std::log(10.0)).abs().maxCoeff(), 1e-9);
  // Without standardisation the widths are in the data's units and the centres are data points.
  options.standardize = false;
  const DensityFit raw = fit_skd(x, options);
  EXPECT_TRUE((raw.model.scales().array() == 0.6).all());
  for (Index l = 0; l < raw.model.n_components(); ++l) {
    EXPECT_LT(((x.colwise() - raw.model.centers().col(l)).colwise().norm()).minCoeff(), 1e-12);
  }
}

TEST(Skd, RejectsBadInput) {
  Rng rng(2);
  const Matrix x = test::normal_matrix(1, 20, rng);
  SkdOptions options;
  options.bandwidth = {};
  EXPECT_THROW(fit_skd(x, options), InvalidArgument);
  options = {};
  options.regularization_passes = 0;
  EXPECT_THROW(fit_skd(x, options), InvalidArgument);
  options = {};
  options.folds = 50;
  EXPECT_THROW(fit_skd(x, options), InvalidArgument);
  Matrix with_nan = x;
  with_nan(0, 3) = std::nan("");
  EXPECT_THROW(fit_skd(with_nan, {}), DataError);
  EXPECT_THROW(fit_skd(Matrix::Ones(1, 10), {}), DataError);
}

}  // namespace
}  // namespace cdens

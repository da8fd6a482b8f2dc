// Tests of density/parzen.hpp: the leave-one-out criteria against explicit leave-one-out refits
// (a Parzen mixture built on the other N − 1 points and evaluated at the point left out), and the
// fitted window against the formula of eq. (10) in the user's units.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cdens/core/gaussian_mixture.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/parzen.hpp"
#include "support.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// The Parzen window of eq. (10) on the columns of `points` (no standardisation).
GaussianMixture parzen_on(const Matrix& points, double gamma) {
  const Index n = points.cols();
  return GaussianMixture(Standardizer::identity(points.rows()),
                         Vector::Constant(n, 1.0 / static_cast<double>(n)), points,
                         Matrix::Constant(points.rows(), n, gamma));
}

/// The points without column i.
Matrix without(const Matrix& points, Index i) {
  Matrix rest(points.rows(), points.cols() - 1);
  rest << points.leftCols(i), points.rightCols(points.cols() - i - 1);
  return rest;
}

TEST(Parzen, LikelihoodCriterionMatchesExplicitLeaveOneOut) {
  Rng rng(2);
  const Matrix z = test::normal_matrix(2, 15, rng);
  const std::vector<double> widths = {0.2, 0.5, 1.3};
  const Vector criterion =
      parzen_criterion(z, widths, ParzenCriterion::leave_one_out_likelihood, 1);
  for (std::size_t w = 0; w < widths.size(); ++w) {
    double total = 0.0;
    for (Index i = 0; i < z.cols(); ++i) {
      total -= parzen_on(without(z, i), widths[w]).log_pdf(z.col(i))(0);
    }
    const double expected = total / static_cast<double>(z.cols());
    EXPECT_NEAR(criterion(static_cast<Index>(w)), expected, 1e-12 * std::abs(expected));
  }
}

TEST(Parzen, LeastSquaresCriterionMatchesExplicitLeaveOneOut) {
  Rng rng(3);
  const Matrix z = test::normal_matrix(2, 12, rng);
  const std::vector<double> widths = {0.3, 0.8};
  const Vector criterion = parzen_criterion(z, widths, ParzenCriterion::least_squares, 1);
  for (std::size_t w = 0; w < widths.size(); ++w) {
    // ∫ p̂² from the full window, minus 2/N Σ p̂_{−i}(z_i) from explicit refits.
    double cross = 0.0;
    for (Index i = 0; i < z.cols(); ++i) {
      cross += parzen_on(without(z, i), widths[w]).pdf(z.col(i))(0);
    }
    const double expected =
        parzen_on(z, widths[w]).squared_norm() - 2.0 * cross / static_cast<double>(z.cols());
    EXPECT_NEAR(criterion(static_cast<Index>(w)), expected, 1e-12 * std::abs(expected));
  }
}

TEST(Parzen, CriterionDoesNotDependOnTheThreadCount) {
  Rng rng(4);
  const Matrix z = test::normal_matrix(3, 600, rng);  // several blocks of samples
  for (const auto criterion :
       {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares}) {
    Matrix first_terms;
    const Vector first = parzen_criterion(z, {0.3, 0.7}, criterion, 1, &first_terms);
    for (int threads : {2, 3}) {
      Matrix terms;
      EXPECT_TRUE(parzen_criterion(z, {0.3, 0.7}, criterion, threads, &terms) == first);
      EXPECT_TRUE(terms == first_terms);
    }
  }
}

TEST(Parzen, FitIsTheWindowOfEquationTenInTheUsersUnits) {
  Rng rng(5);
  Matrix x = test::normal_matrix(2, 80, rng);
  x.row(0) = x.row(0) * 3.0 + Eigen::RowVectorXd::Constant(80, 10.0);
  x.row(1) *= 0.2;
  const DensityFit fit = fit_parzen(x);
  const double gamma = fit.report.hyperparameters.at("bandwidth");
  const Vector scale = test::sample_scale(x);
  // p(u) = (1/N) Σ_k Π_d N(u_d; x_dk, (γ scale_d)²).
  Matrix u = test::normal_matrix(2, 10, rng);
  u.row(0) = u.row(0) * 3.0 + Eigen::RowVectorXd::Constant(10, 10.0);
  u.row(1) *= 0.2;
  const Vector log_p = fit.model.log_pdf(u);
  for (Index j = 0; j < u.cols(); ++j) {
    double total = 0.0;
    for (Index k = 0; k < x.cols(); ++k) {
      double product = 1.0;
      for (Index d = 0; d < 2; ++d) {
        const double sd = gamma * scale(d);
        product *=
            std::exp(-0.5 * std::pow((u(d, j) - x(d, k)) / sd, 2)) / (std::sqrt(2 * kPi) * sd);
      }
      total += product / static_cast<double>(x.cols());
    }
    EXPECT_NEAR(log_p(j), std::log(total), 1e-10);
  }
  EXPECT_EQ(fit.model.n_components(), 80);
  EXPECT_EQ(fit.report.method, "parzen");
}

TEST(Parzen, SearchFindsTheMinimumOfTheCriterion) {
  Rng rng(6);
  const Matrix x = test::normal_matrix(1, 300, rng);
  for (const auto criterion :
       {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares}) {
    ParzenOptions options;
    options.criterion = criterion;
    const DensityFit fit = fit_parzen(x, options);
    const CvTable& table = *fit.report.cross_validation;
    const double gamma = fit.report.hyperparameters.at("bandwidth");
    EXPECT_EQ(table.candidates(table.best, 0), gamma);
    EXPECT_EQ(table.mean_loss.minCoeff(), table.mean_loss(table.best));
    // The chosen width is a local minimum: 1 % either side is no better (up to the tolerance).
    const Matrix z = fit.model.centers();
    const Vector around = parzen_criterion(z, {gamma * 0.99, gamma, gamma * 1.01}, criterion);
    EXPECT_LE(around(1), around(0) + 1e-12);
    EXPECT_LE(around(1), around(2) + 1e-12);
    // For normal data both criteria land near the normal reference rule 1.06 N^(−1/5) ≈ 0.34.
    EXPECT_GT(gamma, 0.15);
    EXPECT_LT(gamma, 0.7);
  }
}

TEST(Parzen, OneFixedWidthIsTakenWithoutScoring) {
  Rng rng(8);
  const Matrix x = test::normal_matrix(2, 60, rng);
  ParzenOptions options;
  options.bandwidth = {0.3};
  const DensityFit fit = fit_parzen(x, options);
  EXPECT_FALSE(fit.report.cross_validation.has_value());
  EXPECT_EQ(fit.report.hyperparameters.at("bandwidth"), 0.3);
  EXPECT_TRUE((fit.model.scales().array() == 0.3).all());
  // The same model as the one a grid of that width alone would choose.
  options.bandwidth = {0.3, 0.3};
  const DensityFit scored = fit_parzen(x, options);
  const Matrix queries = test::normal_matrix(2, 5, rng);
  EXPECT_TRUE(fit.model.log_pdf(queries) == scored.model.log_pdf(queries));
  options.bandwidth = {-0.3};
  EXPECT_THROW(fit_parzen(x, options), InvalidArgument);
}

TEST(Parzen, ExplicitGridIsSearchedExactly) {
  Rng rng(7);
  const Matrix x = test::normal_matrix(1, 100, rng);
  ParzenOptions options;
  options.bandwidth = {0.05, 0.2, 0.4, 1.0, 2.0};
  const DensityFit fit = fit_parzen(x, options);
  const CvTable& table = *fit.report.cross_validation;
  ASSERT_EQ(table.candidates.rows(), 5);
  const Vector expected =
      parzen_criterion(fit.model.centers(), options.bandwidth, options.criterion);
  EXPECT_TRUE(table.mean_loss == expected);
  Index best = 0;
  expected.minCoeff(&best);
  EXPECT_EQ(fit.report.hyperparameters.at("bandwidth"),
            options.bandwidth[static_cast<std::size_t>(best)]);
  options.bandwidth = {5.0, 10.0};
  EXPECT_FALSE(fit_parzen(x, options).report.warnings.empty());
}

TEST(Parzen, RejectsBadInput) {
  Rng rng(8);
  Matrix x = test::normal_matrix(2, 20, rng);
  x(1, 4) = std::nan("");
  EXPECT_THROW(fit_parzen(x), DataError);
  EXPECT_THROW(fit_parzen(Matrix(2, 0)), DataError);
  EXPECT_THROW(fit_parzen(Matrix::Constant(1, 10, 3.0)), DataError);
  EXPECT_THROW(fit_parzen(Matrix::Zero(1, 1)), DataError);
  ParzenOptions options;
  options.bandwidth = {0.5, -1.0};
  EXPECT_THROW(fit_parzen(test::normal_matrix(1, 10, rng), options), InvalidArgument);
  options = {};
  options.search_lower = 2.0;
  options.search_upper = 1.0;
  EXPECT_THROW(fit_parzen(test::normal_matrix(1, 10, rng), options), InvalidArgument);
  EXPECT_THROW(
      parzen_criterion(Matrix::Zero(1, 1), {0.5}, ParzenCriterion::leave_one_out_likelihood),
      InvalidArgument);
}

/// Two narrow clusters along x_0 (±2, sd 0.2), a broad normal along x_1: the two dimensions
/// want different widths.
Matrix clustered_and_broad(Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix x(2, n);
  for (Index i = 0; i < n; ++i) {
    x(0, i) = (i % 2 == 0 ? 2.0 : -2.0) + 0.2 * rng.normal();
    x(1, i) = 5.0 + 3.0 * rng.normal();
  }
  return x;
}

ParzenOptions per_dimension() {
  ParzenOptions options;
  options.per_dimension = true;
  return options;
}

TEST(Parzen, PerDimensionWidthsReportTheirExplicitLeaveOneOutLikelihood) {
  const Matrix x = clustered_and_broad(120, 3);
  const DensityFit fit = fit_parzen(x, per_dimension());
  const Vector h(Eigen::Vector2d(fit.report.hyperparameters.at("bandwidth_0"),
                                 fit.report.hyperparameters.at("bandwidth_1")));
  const Standardizer scaling = Standardizer::fit(x, "x");
  const Matrix z = scaling.transform(x);
  double total = 0.0;
  for (Index i = 0; i < z.cols(); ++i) {
    const Matrix rest = without(z, i);
    const GaussianMixture left_out(Standardizer::identity(2),
                                   Vector::Constant(rest.cols(), 1.0 / rest.cols()), rest,
                                   h.replicate(1, rest.cols()));
    total -= left_out.log_pdf(z.col(i))(0);
  }
  const double expected = total / static_cast<double>(z.cols()) - scaling.log_jacobian();
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), expected, 1e-10 * std::abs(expected));
  EXPECT_EQ(fit.model.scales().col(0), h);
  EXPECT_FALSE(fit.report.cross_validation.has_value());
}

TEST(Parzen, PerDimensionWidthsBeatOneWidthWhereTheDimensionsDiffer) {
  const Matrix x = clustered_and_broad(300, 4);
  const DensityFit one = fit_parzen(x);
  const DensityFit each = fit_parzen(x, per_dimension());
  // One width is the special case of equal widths, so the per-dimension optimum is at least as
  // good; here the narrow clusters take a width well below the broad dimension's.
  EXPECT_LT(each.report.statistics.at("loo_nll") + one.model.x_scaling().log_jacobian(),
            one.report.cross_validation->mean_loss.minCoeff());
  EXPECT_LT(2.0 * each.report.hyperparameters.at("bandwidth_0"),
            each.report.hyperparameters.at("bandwidth_1"));
}

TEST(Parzen, PerDimensionRefusesTheLeastSquaresCriterionAndAGrid) {
  const Matrix x = clustered_and_broad(20, 5);
  ParzenOptions least_squares = per_dimension();
  least_squares.criterion = ParzenCriterion::least_squares;
  EXPECT_NE(test::message_of<InvalidArgument>([&] {
              fit_parzen(x, least_squares);
            }).find("least_squares criterion takes one width"),
            std::string::npos);
  ParzenOptions grid = per_dimension();
  grid.bandwidth = {0.3, 0.5};
  EXPECT_THROW(fit_parzen(x, grid), InvalidArgument);
}

}  // namespace
}  // namespace cdens

// The linear-Gaussian baseline and the trend of the conditional mixture: the fit against
// least squares written out, its leave-one-out likelihood and held-out log-densities against
// explicit refits, every query
// of a mixture with a trend against the shifted mixture, and a model-file round trip.

#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>

#include "cdens/cdens.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// y = 1.5 x_0 − 0.5 x_1 + 2 + 0.4 ε (two outputs: the second is −y + 0.1 ε'), in the user's units.
test::PairSample linear_sample(Index n, std::uint64_t seed) {
  Rng rng(seed);
  test::PairSample sample{test::normal_matrix(2, n, rng), Matrix(2, n)};
  sample.x.row(1) = (sample.x.row(1).array() * 3.0 + 7.0).matrix();
  for (Index i = 0; i < n; ++i) {
    sample.y(0, i) = 1.5 * sample.x(0, i) - 0.5 * sample.x(1, i) + 2.0 + 0.4 * rng.normal();
    sample.y(1, i) = -sample.y(0, i) + 0.1 * rng.normal();
  }
  return sample;
}

/// The constant-spread model (least squares), whose closed forms these tests check.
ConditionalFit fit_constant_spread(const MatrixView& x, const MatrixView& y) {
  LinearOptions options;
  options.variance = LinearVariance::constant;
  return fit_linear(x, y, options);
}

/// log N(y; a + B x, diag s²) in the user's units from least squares on the raw data.
Vector direct_log_density(const Matrix& x, const Matrix& y, const Matrix& query_x,
                          const Matrix& query_y) {
  Matrix design(x.cols(), x.rows() + 1);
  design.col(0).setOnes();
  design.rightCols(x.rows()) = x.transpose();
  const Matrix coefficients = design.colPivHouseholderQr().solve(y.transpose());  // (1 + d_x) × d_y
  const Matrix residuals = y.transpose() - design * coefficients;
  const Vector variances = residuals.colwise().squaredNorm().transpose() / x.cols();
  Matrix query_design(query_x.cols(), x.rows() + 1);
  query_design.col(0).setOnes();
  query_design.rightCols(x.rows()) = query_x.transpose();
  const Matrix mean = (query_design * coefficients).transpose();
  Vector result = Vector::Zero(query_x.cols());
  for (Index j = 0; j < query_x.cols(); ++j) {
    for (Index d = 0; d < y.rows(); ++d) {
      const double error = query_y(d, j) - mean(d, j);
      result(j) -= 0.5 * (std::log(2 * M_PI * variances(d)) + error * error / variances(d));
    }
  }
  return result;
}

TEST(LinearGaussianTest, LogPdfIsLeastSquaresWithTheMaximumLikelihoodVariance) {
  const test::PairSample train = linear_sample(80, 1);
  const ConditionalFit fit = fit_constant_spread(train.x, train.y);
  EXPECT_EQ(fit.model.gate().kind(), "constant");
  const test::PairSample queries = linear_sample(25, 2);
  const Vector expected = direct_log_density(train.x, train.y, queries.x, queries.y);
  const Vector log_density = fit.model.log_pdf(queries.x, queries.y);
  for (Index j = 0; j < 25; ++j) EXPECT_NEAR(log_density(j), expected(j), 1e-9) << "query " << j;
}

TEST(LinearGaussianTest, LeaveOneOutLikelihoodEqualsExplicitRefits) {
  const test::PairSample train = linear_sample(40, 3);
  const ConditionalFit fit = fit_constant_spread(train.x, train.y);
  double total = 0.0;
  for (Index i = 0; i < 40; ++i) {
    std::vector<Index> rest;
    for (Index j = 0; j < 40; ++j) {
      if (j != i) rest.push_back(j);
    }
    // The model is affine-equivariant, so a refit on the other pairs in the user's units (with
    // its own standardisation) predicts pair i as the closed form does.
    const ConditionalFit without =
        fit_constant_spread(gather_samples(train.x, rest), gather_samples(train.y, rest));
    const double log_density = without.model.log_pdf(train.x.col(i), train.y.col(i))(0);
    total -= log_density;
    // The fit's held-out log-densities (auto stacks on them) are these, pair by pair.
    EXPECT_NEAR(fit.report.held_out->log_densities(i), log_density, 1e-9) << "pair " << i;
  }
  EXPECT_NEAR(fit.report.statistics.at("loo_nll"), total / 40.0, 1e-9);
  EXPECT_TRUE(fit.report.held_out->pairs.empty());
}

TEST(LinearGaussianTest, RefusesTooFewPairsAndWarnsOfAnExactLine) {
  const test::PairSample train = linear_sample(4, 4);
  EXPECT_THROW(fit_linear(train.x, train.y), InvalidArgument);
  const test::PairSample more = linear_sample(30, 5);
  const Matrix exact = more.x.row(0) * 2.0;
  // The default (auto) finds the log-linear spread degenerate and keeps the constant one.
  const ConditionalFit fit = fit_linear(more.x, exact);
  ASSERT_EQ(fit.report.warnings.size(), 1u);
  EXPECT_NE(fit.report.warnings[0].find("exact linear function of x"), std::string::npos);
  EXPECT_EQ(fit.model.scales()(0, 0), 1e-10);
}

TEST(ConditionalMixtureTrendTest, QueriesAreThoseOfTheMixtureShiftedByTheTrend) {
  // A trend A moves y's mixture by A z(x): every query must equal the query of the same mixture
  // without a trend, evaluated at y − (A z(x) in the user's units).
  const ConditionalFit kernel = test::small_kernel_fit();
  const ConditionalMixture& plain = kernel.model;
  const Matrix trend = (Matrix(1, 2) << 0.7, -0.4).finished();
  const ConditionalMixture shifted(
      plain.x_scaling(), plain.y_scaling(), plain.shared_gate(),
      plain.outputs().with_trend(std::make_shared<const LinearTrend>(Vector::Zero(1), trend)));
  const test::PairSample queries = test::sine_sample(6, 2, 7);
  const Matrix z = plain.x_scaling().transform(queries.x);
  const Vector shift = (trend * z).row(0).transpose() * plain.y_scaling().scale()(0);  // user units
  const Matrix moved_y = queries.y - shift.transpose();
  EXPECT_TRUE(
      shifted.log_pdf(queries.x, queries.y).isApprox(plain.log_pdf(queries.x, moved_y), 1e-12));
  EXPECT_TRUE(shifted.cdf(queries.x, queries.y).isApprox(plain.cdf(queries.x, moved_y), 1e-12));
  const Matrix quantiles = shifted.quantiles(queries.x, {0.1, 0.5, 0.9});
  const Matrix plain_quantiles = plain.quantiles(queries.x, {0.1, 0.5, 0.9});
  EXPECT_TRUE(quantiles.isApprox(plain_quantiles.rowwise() + shift.transpose(), 1e-10));
  EXPECT_TRUE(shifted.mean(queries.x).isApprox(plain.mean(queries.x) + shift.transpose(), 1e-12));
  EXPECT_TRUE(shifted.covariance(queries.x).isApprox(plain.covariance(queries.x), 1e-12));
  const Matrix grid = Eigen::RowVectorXd::LinSpaced(40, 2.5, 5.5);
  const Matrix grid_densities = shifted.pdf_grid(queries.x, grid);
  for (Index j = 0; j < 6; ++j) {
    const Matrix moved_grid = grid.array() - shift(j);
    EXPECT_TRUE(
        grid_densities.col(j).isApprox(plain.pdf_grid(queries.x.col(j), moved_grid).col(0), 1e-12));
    const auto region = shifted.highest_density_regions(queries.x.col(j), 0.8)[0];
    const auto plain_region = plain.highest_density_regions(queries.x.col(j), 0.8)[0];
    ASSERT_EQ(region.intervals.size(), plain_region.intervals.size());
    for (std::size_t r = 0; r < region.intervals.size(); ++r) {
      EXPECT_NEAR(region.intervals[r].lower, plain_region.intervals[r].lower + shift(j), 1e-10);
      EXPECT_NEAR(region.intervals[r].upper, plain_region.intervals[r].upper + shift(j), 1e-10);
    }
  }
  // Samples: the same draws, shifted.
  const Matrix draws = shifted.sample(queries.x, 5, 3);
  const Matrix plain_draws = plain.sample(queries.x, 5, 3);
  for (Index j = 0; j < 6; ++j) {
    for (Index r = 0; r < 5; ++r) {
      EXPECT_NEAR(draws(0, j * 5 + r), plain_draws(0, j * 5 + r) + shift(j), 1e-10);
    }
  }
  test::expect_model_file_round_trip(shifted, kernel.report, queries.x, queries.y);
}

}  // namespace
}  // namespace cdens

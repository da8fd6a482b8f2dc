// WeightedSums and log_ratio_sums against sums taken term by term in log space, including the
// rows whose largest term belongs to a zero coefficient while the others underflow.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cdens/core/rng.hpp"
#include "core/log_space.hpp"
#include "kernel_sums/weighted_sums.hpp"

namespace cdens {
namespace {

/// log Σ_l α_lj e^{L_il} over the positive α_lj, term by term.
double direct_log_sum(const Matrix& log_terms, const Matrix& alphas, Index i, Index j) {
  Vector terms(alphas.rows());
  for (Index l = 0; l < alphas.rows(); ++l) {
    terms(l) = alphas(l, j) > 0.0 ? log_terms(i, l) + std::log(alphas(l, j))
                                  : -std::numeric_limits<double>::infinity();
  }
  return log_sum_exp(terms);
}

struct Case {
  Matrix numerator_logs, denominator_logs, alphas;
};

Case make_case() {
  Rng rng(5);
  const Index m = 7, b = 6;
  Case c{Matrix(m, b), Matrix(m, b), Matrix(b, 4)};
  for (Index i = 0; i < m; ++i) {
    for (Index l = 0; l < b; ++l) {
      c.denominator_logs(i, l) = -3.0 * rng.uniform();
      c.numerator_logs(i, l) = c.denominator_logs(i, l) - 2.0 * rng.uniform();
    }
  }
  for (Index j = 0; j < 4; ++j) {
    for (Index l = 0; l < b; ++l) c.alphas(l, j) = rng.uniform();
  }
  c.alphas(0, 1) = 0.0;  // column 1 leaves out the term that dominates rows 5 and 6 below
  c.alphas.col(3).setZero();
  for (const Index i : {Index{5}, Index{6}}) {
    c.denominator_logs.row(i).array() -= 1000.0;  // e^{−1000}: flushed below the cutoff …
    c.numerator_logs.row(i).array() -= 1000.0;
    c.denominator_logs(i, 0) = 0.0;  // … relative to a term whose coefficient is 0 in column 1
    c.numerator_logs(i, 0) = -0.5;
  }
  return c;
}

TEST(WeightedSums, LogSumsMatchTermByTermIncludingFlushedRows) {
  const Case c = make_case();
  const WeightedSums sums(c.denominator_logs, c.alphas, -340.0);
  EXPECT_EQ(sums.shifted()(5, 1), 0.0);  // the case the log-space path is for
  for (Index j = 0; j < 3; ++j) {
    for (Index i = 0; i < c.denominator_logs.rows(); ++i) {
      const double expected = direct_log_sum(c.denominator_logs, c.alphas, i, j);
      EXPECT_NEAR(sums.log_sum(i, j), expected, 1e-12 * std::abs(expected) + 1e-12)
          << "row " << i << ", column " << j;
    }
  }
  EXPECT_EQ(sums.log_sum(0, 3), -std::numeric_limits<double>::infinity());
}

TEST(WeightedSums, LogRatioSumsMatchTermByTermAndSkipColumnsWithoutCoefficients) {
  const Case c = make_case();
  const WeightedSums top(c.numerator_logs, c.alphas, -340.0);
  const WeightedSums bottom(c.denominator_logs, c.alphas, -340.0);
  const Vector ratios = log_ratio_sums(top, bottom);
  for (Index j = 0; j < 3; ++j) {
    double expected = 0.0;
    for (Index i = 0; i < c.numerator_logs.rows(); ++i) {
      expected += direct_log_sum(c.numerator_logs, c.alphas, i, j) -
                  direct_log_sum(c.denominator_logs, c.alphas, i, j);
    }
    EXPECT_NEAR(ratios(j), expected, 1e-10 * std::abs(expected)) << "column " << j;
    EXPECT_TRUE(std::isfinite(ratios(j)));
  }
  EXPECT_EQ(ratios(3), 0.0);
  EXPECT_EQ(has_positive_coefficient(c.alphas), (std::vector<bool>{true, true, true, false}));
}

}  // namespace
}  // namespace cdens

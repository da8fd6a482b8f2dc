// The engine behind ε-KDE, NW-CDE and RKDE and the core helpers it added: log-sums of Gaussian
// kernels for several widths (against direct sums), the leave-one-out exclusion, the K-fold
// driver, CV tables built from fold losses, product grids, grid-edge warnings and centre choice.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "cdens/conditional/sacde.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/types.hpp"
#include "conditional/kernel_cde_engine.hpp"
#include "core/log_space.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens {
namespace {

/// log Σ_i exp(−c d_i) summed around the largest term, one term at a time.
double direct_log_sum(const Vector& values, double scale) {
  double largest = -INFINITY;
  for (Index i = 0; i < values.size(); ++i) largest = std::max(largest, -scale * values(i));
  double sum = 0.0;
  for (Index i = 0; i < values.size(); ++i) sum += std::exp(-scale * values(i) - largest);
  return largest + std::log(sum);
}

TEST(KernelCdeTest, LogSumExpScaledMatchesDirectSumsForWideAndTinyWidths) {
  Rng rng(1);
  Vector values = test::normal_matrix(50, 1, rng).col(0).cwiseAbs() * 3.0;
  values(7) = INFINITY;  // left out
  const Vector scales = kernel_scales({0.005, 0.01, 0.3, 1.0, 40.0});
  Vector out(scales.size());
  log_sum_exp_scaled(values, scales, out);
  Vector finite(49);
  finite << values.head(7), values.tail(42);
  for (Index s = 0; s < scales.size(); ++s) {
    const double expected = direct_log_sum(finite, scales(s));
    EXPECT_NEAR(out(s), expected, 1e-12 * std::max(1.0, std::abs(expected))) << "scale " << s;
  }
  log_sum_exp_scaled(Vector(0), scales, out);
  EXPECT_TRUE((out.array() == -INFINITY).all());
  log_sum_exp_scaled(Vector::Constant(3, INFINITY), scales, out);
  EXPECT_TRUE((out.array() == -INFINITY).all());
}

TEST(KernelCdeTest, LogAddExp) {
  EXPECT_NEAR(log_add_exp(std::log(2.0), std::log(3.0)), std::log(5.0), 1e-15);
  EXPECT_EQ(log_add_exp(-INFINITY, 1.5), 1.5);
  EXPECT_EQ(log_add_exp(-INFINITY, -INFINITY), -INFINITY);
  EXPECT_NEAR(log_add_exp(-1000.0, -1000.0), -1000.0 + std::log(2.0), 1e-12);
}

TEST(KernelCdeTest, KernelLogSumsMatchDoubleLoopsWithAndWithoutLeaveOneOut) {
  Rng rng(2);
  const StandardizedSamples reference{test::normal_matrix(3, 30, rng),
                                      test::normal_matrix(2, 30, rng)};
  const std::vector<double> sigmas = {0.05, 0.4, 2.0};
  const Vector scales = kernel_scales(sigmas);
  const auto check = [&](const StandardizedSamples& queries, Index self_offset) {
    const KernelLogSums sums = kernel_log_sums(queries, reference, scales, self_offset);
    ASSERT_EQ(sums.joint.rows(), 3);
    ASSERT_EQ(sums.joint.cols(), queries.z.cols());
    for (Index j = 0; j < queries.z.cols(); ++j) {
      Vector input(30), joint(30);
      for (Index i = 0; i < 30; ++i) {
        const bool self = self_offset >= 0 && i == self_offset + j;
        input(i) = self ? INFINITY : (queries.z.col(j) - reference.z.col(i)).squaredNorm();
        joint(i) =
            self ? INFINITY : input(i) + (queries.t.col(j) - reference.t.col(i)).squaredNorm();
      }
      Vector finite_input(30 - (self_offset >= 0 ? 1 : 0)), finite_joint(finite_input.size());
      for (Index i = 0, k = 0; i < 30; ++i) {
        if (std::isfinite(input(i))) {
          finite_input(k) = input(i);
          finite_joint(k++) = joint(i);
        }
      }
      for (Index s = 0; s < 3; ++s) {
        EXPECT_NEAR(sums.input(s, j), direct_log_sum(finite_input, scales(s)), 1e-10);
        EXPECT_NEAR(sums.joint(s, j), direct_log_sum(finite_joint, scales(s)), 1e-10);
      }
    }
  };
  check({test::normal_matrix(3, 7, rng), test::normal_matrix(2, 7, rng)}, -1);
  // Queries 10 … 17 of the reference, each left out of its own sums.
  check({reference.z.middleCols(10, 8), reference.t.middleCols(10, 8)}, 10);
  // Queries 25 … 29 said to be references 26 … 30: one past the end.
  EXPECT_THROW(kernel_log_sums({reference.z.middleCols(25, 5), reference.t.middleCols(25, 5)},
                               reference, scales, 26),
               InvalidArgument);
}

TEST(KernelCdeTest, KFoldDriverScoresEverySampleOnceWithItsOwnFold) {
  Rng rng(3);
  const KFold folds(601, 3, rng);  // runs of 256 split the folds
  std::vector<int> calls(601, 0);
  const Matrix losses = k_fold_sample_losses(
      folds, 2, 2,
      [&](int k, const std::vector<Index>& samples) {
        Matrix block(2, static_cast<Index>(samples.size()));
        for (std::size_t j = 0; j < samples.size(); ++j) {
          const auto& held_out = folds.test(k);
          EXPECT_TRUE(std::binary_search(held_out.begin(), held_out.end(), samples[j]));
          ++calls[static_cast<std::size_t>(samples[j])];
          block(0, static_cast<Index>(j)) = static_cast<double>(samples[j]);
          block(1, static_cast<Index>(j)) = k;
        }
        EXPECT_LE(samples.size(), 256u);
        return block;
      },
      silent_progress(), "test");
  for (Index i = 0; i < 601; ++i) {
    EXPECT_EQ(calls[static_cast<std::size_t>(i)], 1);
    EXPECT_EQ(losses(0, i), static_cast<double>(i));
  }
  const Matrix means = fold_mean_losses(losses, folds);
  for (int k = 0; k < 3; ++k) {
    const auto& held_out = folds.test(k);
    const double mean = std::accumulate(held_out.begin(), held_out.end(), 0.0) /
                        static_cast<double>(held_out.size());
    EXPECT_NEAR(means(0, k), mean, 1e-12);
    EXPECT_EQ(means(1, k), k);
  }
  EXPECT_THROW(k_fold_sample_losses(
                   folds, 2, 1, [](int, const std::vector<Index>&) { return Matrix(1, 1); },
                   silent_progress(), "test"),
               InvalidArgument);
}

TEST(KernelCdeTest, CvTableFromFoldLossesAndGridHelpers) {
  const Matrix fold_loss = (Matrix(3, 4) << 1, 2, 3, 4,  //
                            0.5, 0.5, 0.5, 0.5,          //
                            NAN, 1, 1, 1)
                               .finished();
  const Matrix candidates = product_grid({0.1, 0.2, 0.3}, {7.0});
  const CvTable table = make_cv_table({"a", "b"}, candidates, fold_loss, "kl");
  EXPECT_EQ(table.mean_loss(0), 2.5);
  EXPECT_NEAR(table.standard_error(0), std::sqrt(5.0 / 3.0) / 2.0, 1e-15);
  EXPECT_EQ(table.standard_error(1), 0.0);
  EXPECT_EQ(table.best, 1);  // the NaN row is never chosen
  EXPECT_THROW(make_cv_table({"a"}, candidates, fold_loss, "kl"), InvalidArgument);
  EXPECT_THROW(make_cv_table({"a", "b"}, candidates, fold_loss.leftCols(1), "kl"), InvalidArgument);

  const Matrix grid = product_grid({1, 2}, {10, 20, 30});
  ASSERT_EQ(grid.rows(), 6);
  EXPECT_EQ(grid.row(4), (Eigen::RowVector2d(2, 20)));
  EXPECT_EQ(grid_candidates({3, 4}), (Matrix(2, 1) << 3, 4).finished());

  EXPECT_EQ(grid_edge_warnings(table, {{0.1, 0.2, 0.3}, {7.0}}), std::vector<std::string>{});
  CvTable at_edge = table;
  at_edge.best = 2;
  EXPECT_EQ(grid_edge_warnings(at_edge, {{0.1, 0.2, 0.3}, {7.0}}),
            std::vector<std::string>{"the chosen a lies at the edge of its grid"});
  EXPECT_FALSE(at_grid_edge({7.0}, 7.0));  // a single candidate has no edge
}

TEST(KernelCdeTest, ChooseCentersTakesAllInOrderOrAPermutationPrefix) {
  Rng rng(4);
  EXPECT_EQ(choose_centers(4, 4, rng), (std::vector<Index>{0, 1, 2, 3}));
  EXPECT_EQ(choose_centers(3, 100, rng), (std::vector<Index>{0, 1, 2}));
  Rng first(5), second(5);
  std::vector<Index> expected = second.permutation(20);
  expected.resize(6);
  EXPECT_EQ(choose_centers(20, 6, first), expected);
}

TEST(KernelCdeTest, GaussianNormaliserAndDefaultGrid) {
  EXPECT_NEAR(log_gaussian_normalizer(3, 0.5),
              3 * std::log(std::sqrt(2 * 3.14159265358979323846) * 0.5), 1e-14);
  const auto grid = sa_cde_width_grid();
  ASSERT_EQ(grid.size(), 20u);
  EXPECT_NEAR(grid[1] / grid[0], std::pow(200.0, 1.0 / 19.0), 1e-12);
}

}  // namespace
}  // namespace cdens

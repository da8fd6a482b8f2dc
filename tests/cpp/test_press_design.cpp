// The PRESS design's storages (src/regression/press_design_products.hpp): the sparse products
// against the dense ones formed directly, in both precisions, with state counts below and above
// one group of 16; and the storage rule at its threshold. The objective's gradient on a sparse
// design is checked against finite differences in test_press.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cdens/core/rng.hpp"
#include "regression/press_design_products.hpp"
#include "regression/press_smoother.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::normal_matrix;

/// d × n normal inputs with each entry zeroed with probability `zero_share`.
Matrix sparse_inputs(Index d, Index n, double zero_share, Rng& rng) {
  Matrix x = normal_matrix(d, n, rng);
  for (Index k = 0; k < x.size(); ++k) {
    if (rng.uniform() < zero_share) x(k) = 0.0;
  }
  return x;
}

/// log-softmax of every column of Bᵀ Z, formed directly.
Matrix direct_log_state_weights(const Matrix& coefficients, const Matrix& design) {
  Matrix logits = coefficients.transpose() * design;
  for (Index i = 0; i < logits.cols(); ++i) {
    const double largest = logits.col(i).maxCoeff();
    const double log_sum = largest + std::log((logits.col(i).array() - largest).exp().sum());
    logits.col(i).array() -= log_sum;
  }
  return logits;
}

double largest_difference(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

TEST(PressDesign, SparseStorageGivesTheDenseProducts) {
  Rng rng(21);
  // 5,000 samples: two full blocks of 2,048 and a partial one. About 26 % of the design is
  // nonzero (its row of ones and a fifth of x).
  const Index d = 12;
  const Index n = 5000;
  const Matrix design = press_design(sparse_inputs(d, n, 0.8, rng));
  for (const Index states : {Index{3}, Index{20}}) {
    SCOPED_TRACE(states);
    const Matrix coefficients = normal_matrix(d + 1, states, rng);
    const Matrix d_logits = normal_matrix(states, n, rng);
    const Matrix log_weights = direct_log_state_weights(coefficients, design);
    const Matrix gradient = design * d_logits.transpose();
    for (const bool single_precision : {false, true}) {
      SCOPED_TRACE(single_precision);
      const PressDesignProducts products(design, single_precision);
      ASSERT_EQ(products.storage(), PressDesignStorage::sparse);
      ASSERT_EQ(products.dim(), d + 1);
      ASSERT_EQ(products.samples(), n);
      // Float sums of ~n terms of size ~1: relative rounding ~ 1e-7 · √n, well below 1e-4.
      const double tolerance = single_precision ? 1e-4 : 1e-12;
      EXPECT_LT(largest_difference(products.log_state_weights(coefficients, 2), log_weights),
                tolerance);
      EXPECT_LT(largest_difference(products.state_weights(coefficients, 2),
                                   log_weights.array().exp().matrix()),
                tolerance);
      const auto block_d_logits = [&](Index start, Eigen::Ref<Matrix> block) {
        block = d_logits.middleCols(start, block.cols());
      };
      const Matrix by_blocks = products.gradient(states, block_d_logits, 2);
      EXPECT_LT(largest_difference(by_blocks, gradient), tolerance);
      // The blocks' partial sums are added in block order whatever the thread count.
      EXPECT_EQ(products.gradient(states, block_d_logits, 1), by_blocks);
    }
  }
}

TEST(PressDesign, SparseStorageFromHalfTheEntriesZero) {
  Matrix design = Matrix::Zero(2, 4);
  design.row(0).setOnes();
  EXPECT_EQ(PressDesignProducts(design, false).storage(), PressDesignStorage::sparse);
  design(1, 2) = 0.5;
  EXPECT_EQ(PressDesignProducts(design, false).storage(), PressDesignStorage::dense);
  EXPECT_EQ(PressDesignProducts(design, true).storage(), PressDesignStorage::dense);
}

}  // namespace
}  // namespace cdens

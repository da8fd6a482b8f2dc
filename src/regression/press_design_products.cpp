#include "regression/press_design_products.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "cdens/core/types.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Samples per block of the two products; fixed, so that partial sums (and with them the result)
// do not depend on the thread count.
constexpr Index kSampleBlock = 2048;

Index block_count(Index n) { return (n + kSampleBlock - 1) / kSampleBlock; }

/// Logits Bᵀ Z of a block turned, column by column, into log W (log-softmax) or W (softmax), in
/// place; each step runs over the whole block, so that the exponentials are vectorised.
void softmax_columns(Eigen::Ref<Matrix> logits, bool logarithm) {
  const Eigen::RowVectorXd largest = logits.colwise().maxCoeff();
  logits.rowwise() -= largest;
  if (logarithm) {
    const Eigen::RowVectorXd log_sums = logits.array().exp().colwise().sum().log().matrix();
    logits.rowwise() -= log_sums;
  } else {
    logits = logits.array().exp().matrix();
    const Eigen::RowVectorXd sums = logits.colwise().sum();
    logits.array().rowwise() /= sums.array();
  }
}

// The sparse storage's fixed number of columns of B and G (more states run in groups of 16):
// 16 floats fill one AVX-512 register (two of doubles), so every nonzero of Z updates a whole
// row in one or two instructions. With a dynamic column count Eigen's sparse products ran
// 2.5–10× slower (measured at J = 10).
constexpr Index kSparseStates = 16;

// Sparse storage pays from about 60 % zeros on (per entry, a dense SGEMM took 0.72 ns and the
// sparse product 1.2 ns per nonzero); half keeps a margin.
constexpr double kSparseNonzeroShare = 0.5;

template <class Scalar>
using Padded = Eigen::Matrix<Scalar, Eigen::Dynamic, kSparseStates, Eigen::RowMajor>;

/// `matrix` (states as columns) in precision Scalar, padded with zero columns to kSparseStates.
template <class Scalar, class Expression>
Padded<Scalar> padded(const Eigen::MatrixBase<Expression>& matrix) {
  Padded<Scalar> result = Padded<Scalar>::Zero(matrix.rows(), kSparseStates);
  result.leftCols(matrix.cols()) = matrix.template cast<Scalar>();
  return result;
}

template <class Stored>
constexpr bool is_sparse = std::is_base_of_v<Eigen::SparseMatrixBase<Stored>, Stored>;

}  // namespace

PressDesignProducts::PressDesignProducts(const MatrixView& design, bool single_precision,
                                         const Communicator& communicator) {
  // The share of nonzero entries over every rank's samples, so that every rank keeps the same
  // storage.
  std::array<double, 2> entries{static_cast<double>((design.array() != 0.0).count()),
                                static_cast<double>(design.size())};
  communicator.allreduce_sum(entries.data(), entries.size());
  const bool sparse = entries[0] <= kSparseNonzeroShare * entries[1];
  if (sparse && single_precision) {
    design_ = Sparse<float>(design.cast<float>().sparseView());
  } else if (sparse) {
    design_ = Sparse<double>(design.sparseView());
  } else if (single_precision) {
    design_ = Dense<float>(design.cast<float>());
  } else {
    design_ = Dense<double>(design);
  }
}

Index PressDesignProducts::dim() const {
  return std::visit([](const auto& z) { return static_cast<Index>(z.rows()); }, design_);
}

Index PressDesignProducts::samples() const {
  return std::visit([](const auto& z) { return static_cast<Index>(z.cols()); }, design_);
}

PressDesignStorage PressDesignProducts::storage() const {
  return design_.index() >= 2 ? PressDesignStorage::sparse : PressDesignStorage::dense;
}

void PressDesignProducts::block_logits(const MatrixView& coefficients, Index start, Index width,
                                       Eigen::Ref<Matrix> out) const {
  std::visit(
      [&](const auto& z) {
        using Stored = std::decay_t<decltype(z)>;
        using Scalar = typename Stored::Scalar;
        if constexpr (is_sparse<Stored>) {
          for (Index first = 0; first < coefficients.cols(); first += kSparseStates) {
            const Index count = std::min(kSparseStates, coefficients.cols() - first);
            const Padded<Scalar> b = padded<Scalar>(coefficients.middleCols(first, count));
            Padded<Scalar> chunk(width, kSparseStates);
            chunk.noalias() = z.middleCols(start, width).transpose() * b;
            out.middleRows(first, count) =
                chunk.leftCols(count).transpose().template cast<double>();
          }
        } else if constexpr (std::is_same_v<Scalar, float>) {
          out = (coefficients.transpose().cast<float>() * z.middleCols(start, width))
                    .template cast<double>();
        } else {
          out.noalias() = coefficients.transpose() * z.middleCols(start, width);
        }
      },
      design_);
}

Matrix PressDesignProducts::block_gradient(const MatrixView& d_logits, Index start) const {
  const Index width = d_logits.cols();
  return std::visit(
      [&](const auto& z) -> Matrix {
        using Stored = std::decay_t<decltype(z)>;
        using Scalar = typename Stored::Scalar;
        if constexpr (is_sparse<Stored>) {
          Matrix result(z.rows(), d_logits.rows());
          for (Index first = 0; first < d_logits.rows(); first += kSparseStates) {
            const Index count = std::min(kSparseStates, d_logits.rows() - first);
            const Padded<Scalar> g = padded<Scalar>(d_logits.middleRows(first, count).transpose());
            Padded<Scalar> product(z.rows(), kSparseStates);
            product.noalias() = z.middleCols(start, width) * g;
            result.middleCols(first, count) = product.leftCols(count).template cast<double>();
          }
          return result;
        } else if constexpr (std::is_same_v<Scalar, float>) {
          return (z.middleCols(start, width) * d_logits.transpose().cast<float>())
              .template cast<double>();
        } else {
          return z.middleCols(start, width) * d_logits.transpose();
        }
      },
      design_);
}

Matrix PressDesignProducts::weights_by_blocks(const MatrixView& coefficients, int threads,
                                              bool logarithm) const {
  if (coefficients.rows() != dim()) {
    throw InvalidArgument("PRESS coefficients have " + std::to_string(coefficients.rows()) +
                          " rows but the design has dimension " + std::to_string(dim()));
  }
  const Index n = samples();
  Matrix weights(coefficients.cols(), n);
  parallel_for(threads, block_count(n), [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index width = std::min(kSampleBlock, n - start);
    auto out = weights.middleCols(start, width);
    block_logits(coefficients, start, width, out);
    softmax_columns(out, logarithm);
  });
  return weights;
}

Matrix PressDesignProducts::log_state_weights(const MatrixView& coefficients, int threads) const {
  return weights_by_blocks(coefficients, threads, true);
}

Matrix PressDesignProducts::state_weights(const MatrixView& coefficients, int threads) const {
  return weights_by_blocks(coefficients, threads, false);
}

Matrix PressDesignProducts::gradient(Index states, const BlockDLogits& block_d_logits,
                                     int threads) const {
  const Index n = samples();
  // A rank without samples (docs/distributed.md) adds nothing to the gradient.
  if (n == 0) return Matrix::Zero(dim(), states);
  std::vector<Matrix> partial(static_cast<std::size_t>(block_count(n)));
  parallel_for(threads, block_count(n), [&](Index block) {
    const Index start = block * kSampleBlock;
    Matrix d_logits(states, std::min(kSampleBlock, n - start));
    block_d_logits(start, d_logits);
    partial[static_cast<std::size_t>(block)] = block_gradient(d_logits, start);
  });
  Matrix sum = partial.front();
  for (std::size_t b = 1; b < partial.size(); ++b) sum += partial[b];
  return sum;
}

}  // namespace cdens

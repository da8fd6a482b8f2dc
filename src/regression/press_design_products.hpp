#pragma once
// The PRESS design Z = (1, x) ((d + 1) × n) kept for the two products every evaluation makes
// (press_smoother.hpp), the logits L = Bᵀ Z and the gradient Z Gᵀ, in the storage they run
// fastest on:
//   * dense, in double precision or, with single_precision, in float (half the memory traffic);
//   * compressed sparse columns, in the same precision, when at most half the entries of Z are
//     nonzero (pixels, one-hot and count features: MNIST's are 19 % nonzero). B and G are then
//     taken 16 states at a time, padded to 16 columns of fixed width, where Eigen's sparse ×
//     dense product vectorises; at J = 10 on MNIST-like data the two products take a third of
//     the dense SGEMMs' time (docs/benchmarks.md, "PRESS per evaluation").
// Both storages give the same products up to rounding (the sums run in another order). Both
// products run over fixed blocks of samples whose partial sums are added in block order, so
// the results do not depend on the thread count.

#include <Eigen/SparseCore>
#include <functional>
#include <variant>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

enum class PressDesignStorage { dense, sparse };

class PressDesignProducts {
 public:
  /// Keeps `design` ((d + 1) × n), sparse where the rule above says so. With samples spread over
  /// the ranks of `communicator` (a collective call), the rule counts every rank's entries.
  PressDesignProducts(const MatrixView& design, bool single_precision,
                      const Communicator& communicator = local_communicator());

  Index dim() const;
  Index samples() const;
  PressDesignStorage storage() const;

  /// W = softmax(Bᵀ Z) (J × n) for coefficients B ((d + 1) × J), on `threads` threads.
  Matrix state_weights(const MatrixView& coefficients, int threads) const;
  /// log W, computed stably (log-softmax).
  Matrix log_state_weights(const MatrixView& coefficients, int threads) const;

  /// Writes the columns [start, start + G.cols()) of G = ∂F/∂L into G (J × width).
  using BlockDLogits = std::function<void(Index start, Eigen::Ref<Matrix> d_logits)>;
  /// Z Gᵀ ((d + 1) × J) for G = ∂F/∂L of `states` rows, built block by block by
  /// `block_d_logits` (so G is never held whole) on `threads` threads; the blocks' products are
  /// added in block order.
  Matrix gradient(Index states, const BlockDLogits& block_d_logits, int threads) const;

 private:
  template <class Scalar>
  using Dense = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  template <class Scalar>
  using Sparse = Eigen::SparseMatrix<Scalar>;
  /// Bᵀ Z of the samples [start, start + width) into `out` (J × width).
  void block_logits(const MatrixView& coefficients, Index start, Index width,
                    Eigen::Ref<Matrix> out) const;
  /// Z Gᵀ of the samples [start, start + G.cols()) for their columns G of ∂F/∂L.
  Matrix block_gradient(const MatrixView& d_logits, Index start) const;
  /// W or log W by blocks of samples.
  Matrix weights_by_blocks(const MatrixView& coefficients, int threads, bool logarithm) const;

  std::variant<Dense<double>, Dense<float>, Sparse<double>, Sparse<float>> design_;
};

}  // namespace cdens

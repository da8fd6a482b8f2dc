#pragma once
// The PRESS smoother (Goerg 2017, §3–4) and its training criteria with analytic gradients.
//
// States: w(x) = softmax(Bᵀ z(x)) with z = (1, x) (logistic PRESS, eq. 29), collected for the
// n training inputs in W (here J × n: one column per sample, as everywhere in cdens; the paper's
// W is its transpose). The smoother S = Wᵀ D(W) W with D = diag(1/σ_j), σ_j = Σ_i W_ji (eqs.
// 17, 22) is never formed: ȳ = D W y (eq. 23), ŷ = Wᵀ ȳ (eq. 24), s_ii = Σ_j W_ji²/σ_j (eq. 33)
// and ν = tr S = Σ_j ‖W_j‖²/σ_j (eq. 35) all cost O(nJ). Every pass runs over fixed blocks of
// samples whose partial sums are added in block order, so the result does not depend on the
// thread count.
//
// Gradient. With F = Σ_i f(u_i, s_ii) + g(ν), r_i = ∂F/∂ŷ_i and t_i = ∂F/∂s_ii + ∂F/∂ν:
//   ∂F/∂W_ji = r_i ȳ_j + c_j (y_i − ȳ_j) + 2 t_i W_ji/σ_j − e_j,
//   c_j = Σ_k r_k W_jk / σ_j,  e_j = Σ_k t_k W_jk² / σ_j²,
// then through the softmax ∂F/∂L_ji = W_ji (∂F/∂W_ji − Σ_l W_li ∂F/∂W_li) and ∂F/∂B = Z (∂F/∂L)ᵀ:
// two products with the design (forward and backward) and O(nJ) work per evaluation.

#include <memory>
#include <string>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"
#include "cdens/regression/press.hpp"

namespace cdens {

/// The smoothness penalty μ (ν_smooth − ν)² of eq. (36); weight μ = 0 turns it off.
struct PressSmoothnessPenalty {
  double weight = 0.0;      ///< μ ≥ 0
  double target_dof = 0.0;  ///< ν_smooth
};

/// The design z = (1, x) of every column of x (d × n): a (d + 1) × n matrix.
Matrix press_design(const MatrixView& x);

/// State weights W = softmax(Bᵀ Z) (J × n) for coefficients B ((d + 1) × J) and a design Z, on
/// `threads` OpenMP threads (0: the default).
Matrix press_state_weights(const MatrixView& coefficients, const MatrixView& design,
                           int threads = 0);

/// log W, computed stably (log-softmax).
Matrix press_log_state_weights(const MatrixView& coefficients, const MatrixView& design,
                               int threads = 0);

/// What the smoother of state weights W (J × n) does to y (n), in O(nJ). With samples spread over
/// the ranks of a communicator (each rank passing its columns of W and its y), the sums over
/// samples are over every rank's; the per-sample values are this rank's.
struct PressSmoothing {
  Vector state_sizes;         ///< σ_j = Σ_i W_ji (eq. 17)
  Vector state_means;         ///< ȳ⁽ʲ⁾ = Σ_i W_ji y_i / σ_j (eqs. 20, 23)
  Vector fitted;              ///< ŷ = Wᵀ ȳ (eq. 24)
  Vector smoother_diagonal;   ///< s_ii = Σ_j W_ji² / σ_j (eq. 33)
  double degrees_of_freedom;  ///< ν = tr S = Σ_j ‖W_j‖² / σ_j (eq. 35)
};

/// A collective call of `communicator`.
PressSmoothing press_smoothing(const MatrixView& weights, const VectorView& y,
                               const Communicator& communicator = local_communicator());

/// Shannon entropy η_i = −Σ_j W_ji log₂ W_ji of every column (eq. 18), 0 log 0 = 0.
Vector press_state_entropies(const MatrixView& weights);

/// The value of a PRESS criterion (plus the smoothness penalty) at coefficients B.
struct PressEvaluation {
  double value = 0.0;               ///< criterion + penalty
  double criterion = 0.0;           ///< the criterion alone (a mean squared error)
  double mse = 0.0;                 ///< in-sample MSE, whatever the criterion
  double degrees_of_freedom = 0.0;  ///< ν
  Vector state_means;               ///< ȳ⁽ʲ⁾ of the training data
};

class PressDesignProducts;

/// A training criterion on fixed data, evaluated with its gradient in O(nJ) plus two products
/// with the design.
class PressObjective {
 public:
  /// `design` is (d + 1) × n (press_design), `y` holds n outputs; `threads` as everywhere (0:
  /// the OpenMP default). The objective keeps its own copy of the design, in sparse storage
  /// when at most half its entries are nonzero. `single_precision` keeps it in float and runs
  /// the two products in single precision (half their memory traffic, for large n·d such as
  /// MNIST); everything else stays double.
  /// With a `communicator` of several ranks, `design` and `y` are this rank's samples, and every
  /// evaluation is a collective call whose value and gradient are those of every rank's samples
  /// (the same bits on every rank).
  PressObjective(const MatrixView& design, Vector y, PressCriterion criterion,
                 PressSmoothnessPenalty penalty = {}, int threads = 0,
                 bool single_precision = false,
                 const Communicator& communicator = local_communicator());

  /// The samples of every rank.
  Index n_samples() const { return total_samples_; }
  Index design_dim() const;
  /// Whether the design is kept in sparse storage.
  bool sparse_design() const;

  /// The value at coefficients B ((d + 1) × J); ∂value/∂B into `gradient` when non-null.
  /// A LOOCV with some s_ii ≥ 1 (a state holding one sample) has value +∞.
  PressEvaluation evaluate(const MatrixView& coefficients, Matrix* gradient) const;

 private:
  std::shared_ptr<const PressDesignProducts> design_;
  Vector y_;
  const Communicator* communicator_;
  Index total_samples_;
  PressCriterion criterion_;
  PressSmoothnessPenalty penalty_;
  int threads_;
};

}  // namespace cdens

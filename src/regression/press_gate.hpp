#pragma once
// The PRESS predictive distribution (Goerg 2017, eqs. 14, 25) as a conditional mixture:
//
//   p(y|x) = Σ_j w_j(x) p(y|s_j),   p(y|s_j) = Σ_i (W_ji/σ_j) N(y; y_i, h_j²),
//
// a weighted kernel density estimate of the training outputs per state (§3.1). Training outputs
// that are equal (abalone's integer rings, MNIST's ten digits) are one component with the summed
// weight A_jk = Σ_{i: y_i = v_k} W_ji/σ_j, which changes nothing in the density and keeps the
// model small. The components are the pairs (state j, distinct output v_k), index j·K + k, with
// gate weight w_j(x) A_jk; as Σ_k A_jk = 1 the weights already sum to one, and the mixture mean
// is Σ_j w_j(x) ȳ⁽ʲ⁾, the point prediction of eq. (20).

#include <memory>
#include <nlohmann/json_fwd.hpp>

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "regression/press_smoother.hpp"

namespace cdens {

class PressGate final : public ConditionalGate {
 public:
  /// `coefficients` B is (d + 1) × J on standardised inputs (row 0: intercepts); `output_weights`
  /// A is J × K with non-negative rows summing to 1; `state_sizes` σ_j (J values > 0).
  PressGate(Matrix coefficients, Matrix output_weights, Vector state_sizes);

  std::string kind() const override { return "press"; }
  Index input_dim() const override { return coefficients_.rows() - 1; }
  Index n_components() const override { return n_states() * n_outputs(); }
  /// log w_j(x) + log A_jk for component j·K + k.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  /// log (σ_j A_jk): the marginal predictive distribution of the training data.
  Vector log_marginal_weights() const override;
  nlohmann::json to_json() const override;
  static std::shared_ptr<const PressGate> from_json(const nlohmann::json& document);

  Index n_states() const { return coefficients_.cols(); }
  /// Number K of distinct training outputs.
  Index n_outputs() const { return output_weights_.cols(); }
  const Matrix& coefficients() const { return coefficients_; }
  const Matrix& output_weights() const { return output_weights_; }
  const Vector& state_sizes() const { return state_sizes_; }
  /// The state weights w(x) = softmax(Bᵀ (1, x)) of standardised inputs: J × m.
  Matrix state_weights(const MatrixView& x) const;

 private:
  Matrix coefficients_;
  Matrix output_weights_;
  Vector state_sizes_;
  Matrix log_output_weights_;
};

/// The per-state kernel widths h_j (standardised output units): the normal-reference rule
/// 1.06 · sd_j · n_j^(−1/5) with the state's weighted standard deviation sd_j and its effective
/// sample size n_j = σ_j² / Σ_i W_ji² (Kish), at least 1e−3. With samples spread over the ranks
/// of `communicator`, each passes its columns of W and its y, and the sums are over every rank's
/// (a collective call).
Vector press_state_bandwidths(const MatrixView& weights, const VectorView& y,
                              const Communicator& communicator = local_communicator());

/// The predictive distribution of states W (J × n) over standardised training outputs y (n),
/// for coefficients B on standardised inputs. With samples spread over the ranks of
/// `communicator` (a collective call), each passes its columns of W and its y; every rank
/// receives every rank's distinct outputs with their summed weights, and gets the model of all.
ConditionalMixture make_press_mixture(const Standardizer& x_scaling, const Standardizer& y_scaling,
                                      const MatrixView& coefficients, const MatrixView& weights,
                                      const VectorView& y,
                                      const Communicator& communicator = local_communicator());

/// The PressGate of a PRESS model; InvalidArgument naming the model's kind otherwise.
const PressGate& press_gate_of(const ConditionalMixture& model);

/// State weights w(x) (J × m) of inputs x in the user's units under a PRESS model.
Matrix press_state_weights(const ConditionalMixture& model, const MatrixView& x);

}  // namespace cdens

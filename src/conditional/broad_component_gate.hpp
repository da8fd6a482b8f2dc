#pragma once
// A gate with one more component of constant weight δ: w̃_k(x) = (1 − δ) π_k(x) for the inner
// gate's normalised weights π_k and w̃_{K+1} = δ. KCDE around the Gaussian-process trend puts the
// process's own predictive Gaussian N(e; 0, I) behind the extra component (docs/methods/kcde.md),
// so that a residual beyond every kernel scores as the process would score it, not in the
// Gaussian tail of the nearest kernel.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "cdens/core/conditional_gate.hpp"

namespace cdens {

class BroadComponentGate final : public ConditionalGate {
 public:
  /// `weight` δ ∈ [0, 1] (1: the broad component alone).
  BroadComponentGate(std::shared_ptr<const ConditionalGate> inner, double weight);

  std::string kind() const override { return "broad_component"; }
  Index input_dim() const override { return inner_->input_dim(); }
  Index n_components() const override { return inner_->n_components() + 1; }
  std::vector<Index> discrete_inputs() const override { return inner_->discrete_inputs(); }
  /// log((1 − δ) π_k(x)) for the inner components, log δ for the last; where every inner weight
  /// is zero, the inner components share 1 − δ equally.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override;
  /// The inner gate's Gaussian kernel with δ as its broad weight; nothing where the inner gate
  /// has none.
  std::optional<GaussianKernelCenters> gaussian_kernel() const override;
  /// {"weight", "inner": {"kind", "parameters"}}.
  nlohmann::json to_json() const override;
  static std::shared_ptr<const BroadComponentGate> from_json(const nlohmann::json& document,
                                                             const GateReader& read_gate);

  double weight() const { return weight_; }
  const ConditionalGate& inner() const { return *inner_; }

 private:
  std::shared_ptr<const ConditionalGate> inner_;
  double weight_;
};

}  // namespace cdens

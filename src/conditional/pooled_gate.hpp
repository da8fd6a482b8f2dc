#pragma once
// The linear pool of several fitted conditional mixtures, p(y|x) = Σ_c a_c p_c(y|x) with
// weights a_c ≥ 0 summing to one (auto's stacking, docs/methods/auto.md): one mixture whose
// components are the members' in order, each member a trend group of its own, behind a gate
// that gives component k of member c the weight a_c π_ck(x), π_c the member's normalised weights.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

class PooledGate final : public ConditionalGate {
 public:
  /// The members' gates (of one input dimension) and their weights a_c > 0 (any scale: they
  /// are normalised to sum to one; weights that do already, up to rounding, are kept to the bit).
  PooledGate(std::vector<std::shared_ptr<const ConditionalGate>> members, const Vector& weights);

  std::string kind() const override { return "pooled"; }
  Index input_dim() const override { return members_.front()->input_dim(); }
  Index n_components() const override { return n_components_; }
  /// log(a_c π_ck(x)); a member whose weights are all zero at x falls back to its marginal
  /// weights, as its own mixture would.
  void log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const override;
  Vector log_marginal_weights() const override;
  /// Every input some member treats as discrete.
  std::vector<Index> discrete_inputs() const override;
  /// The member gates and their normalised weights a_c.
  std::vector<PooledMember> pooled_members() const override;
  /// {"weights": [a_c], "members": [{"kind", parameters}]}.
  nlohmann::json to_json() const override;
  static std::shared_ptr<const PooledGate> from_json(const nlohmann::json& document,
                                                     const GateReader& read_gate);

  /// The normalised weights a_c.
  const Vector& weights() const { return weights_; }

 private:
  std::vector<std::shared_ptr<const ConditionalGate>> members_;
  Vector weights_;
  Index n_components_ = 0;
};

/// Whether two mixtures can be members of one pool: the same input and output standardisations
/// (to 10⁻¹² relative: fits of the same pairs), output kernels and atom (none, or one value).
bool can_pool(const ConditionalMixture& a, const ConditionalMixture& b);

/// The linear pool Σ_c a_c p_c of `members` (weights a_c > 0, normalised): one mixture of every
/// member's components with the members' trends as its trend groups (and their atom's components
/// as its atom's). InvalidArgument where two
/// members cannot be pooled (can_pool).
ConditionalMixture pool_mixtures(const std::vector<const ConditionalMixture*>& members,
                                 const Vector& weights);

}  // namespace cdens

#pragma once
// The linear pool of several fitted conditional mixtures, p(y|x) = Σ_c a_c p_c(y|x) with
// weights a_c ≥ 0 summing to one (auto's stacking, docs/methods/auto.md): one mixture whose
// components are the members' in order, each member a trend group of its own, behind a gate
// that gives component k of member c the weight a_c π_ck(x), π_c the member's normalised weights.
// Members that standardise x or y otherwise than each other keep their own standardisations:
// the pool's inputs are then the raw x, which each member's gate and trend standardise as its
// own fit did, and a member's group carries a PoolMemberTrend from its output units to the
// pool's (output_trend.hpp).

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
  /// `input_scalings`: none, or one per member: the standardisation its gate takes the pool's
  /// inputs through (PooledMember::input_scaling).
  PooledGate(std::vector<std::shared_ptr<const ConditionalGate>> members, const Vector& weights,
             std::vector<Standardizer> input_scalings = {});

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
  /// {"weights": [a_c], "members": [{"kind", parameters}]}, and "input_scalings" where the
  /// members have their own.
  nlohmann::json to_json() const override;
  static std::shared_ptr<const PooledGate> from_json(const nlohmann::json& document,
                                                     const GateReader& read_gate);

  /// The normalised weights a_c.
  const Vector& weights() const { return weights_; }

 private:
  std::vector<std::shared_ptr<const ConditionalGate>> members_;
  Vector weights_;
  std::vector<Standardizer> input_scalings_;  ///< empty, or one per member
  Index n_components_ = 0;
};

/// Whether two mixtures can be members of one pool: the same output kernels and atom (none, or
/// one value), and the same standardisations unless their outputs are continuous without an atom
/// (a pool moves members of other standardisations by trends, which an atom or a discrete
/// output does not take).
bool can_pool(const ConditionalMixture& a, const ConditionalMixture& b);

/// The linear pool Σ_c a_c p_c of `members` (weights a_c > 0, normalised): one mixture of every
/// member's components with the members' trends as its trend groups (and their atom's components
/// as its atom's). Where the members share their standardisations (to 10⁻¹² relative: fits of
/// the same pairs) the pool has them; otherwise the pool's inputs are the raw x, each member's
/// gate and trend taking them through its own standardisation, and its outputs the first
/// member's standardisation, each other member's group moved there by a PoolMemberTrend.
/// InvalidArgument where a member cannot be pooled with the first (can_pool).
ConditionalMixture pool_mixtures(const std::vector<const ConditionalMixture*>& members,
                                 const Vector& weights);

}  // namespace cdens

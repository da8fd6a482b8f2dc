#include "conditional/pooled_gate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {
namespace {

/// Whether two standardisations agree to 10⁻¹² relative (fits of the same pairs, whose sums may
/// be taken in another order).
bool same_scaling(const Standardizer& a, const Standardizer& b) {
  if (a.dimension() != b.dimension()) return false;
  const auto close = [](const Vector& u, const Vector& v) {
    return ((u - v).array().abs() <= 1e-12 * u.array().abs().max(v.array().abs()).max(1.0)).all();
  };
  return close(a.mean(), b.mean()) && close(a.scale(), b.scale());
}

bool same_kernels(const ColumnKernels& a, const ColumnKernels& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (a[d].to_json() != b[d].to_json()) return false;
  }
  return true;
}

}  // namespace

PooledGate::PooledGate(std::vector<std::shared_ptr<const ConditionalGate>> members,
                       const Vector& weights)
    : members_(std::move(members)) {
  if (members_.empty() || static_cast<Index>(members_.size()) != weights.size()) {
    throw InvalidArgument("pooled gate: one weight per member gate is needed");
  }
  if (!(weights.array() > 0.0).all() || !weights.allFinite()) {
    throw InvalidArgument("pooled gate: the weights must be finite and positive");
  }
  // Weights that sum to one up to rounding are kept as they are: dividing by a sum of 1 − 1 ulp
  // moves their last bits, and a pool read back from its file (whose weights are normalised)
  // must be the pool that was written, to the bit.
  const double total = weights.sum();
  const double rounding =
      4.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(weights.size());
  weights_ = std::abs(total - 1.0) <= rounding ? weights : Vector(weights / total);
  for (const auto& member : members_) {
    if (!member || member->input_dim() != members_.front()->input_dim()) {
      throw InvalidArgument("pooled gate: the member gates must share the input dimension");
    }
    n_components_ += member->n_components();
  }
}

void PooledGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  Index first = 0;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    const Index count = members_[c]->n_components();
    auto rows = out.middleRows(first, count);
    members_[c]->log_weights(x, rows);
    const double log_weight = std::log(weights_(static_cast<Index>(c)));
    const Vector marginal = members_[c]->log_marginal_weights();
    const double marginal_normaliser = log_sum_exp(marginal);
    for (Index j = 0; j < out.cols(); ++j) {
      const double normaliser = log_sum_exp(rows.col(j));
      if (normaliser == -INFINITY) {
        rows.col(j) = marginal.array() + (log_weight - marginal_normaliser);
      } else {
        rows.col(j).array() += log_weight - normaliser;
      }
    }
    first += count;
  }
}

Vector PooledGate::log_marginal_weights() const {
  Vector weights(n_components_);
  Index first = 0;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    const Vector marginal = members_[c]->log_marginal_weights();
    weights.segment(first, marginal.size()) =
        marginal.array() + std::log(weights_(static_cast<Index>(c))) - log_sum_exp(marginal);
    first += marginal.size();
  }
  return weights;
}

std::vector<PooledMember> PooledGate::pooled_members() const {
  std::vector<PooledMember> members;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    members.push_back({members_[c], weights_(static_cast<Index>(c))});
  }
  return members;
}

std::vector<Index> PooledGate::discrete_inputs() const {
  std::vector<Index> discrete;
  for (const auto& member : members_) {
    const std::vector<Index> own = member->discrete_inputs();
    discrete.insert(discrete.end(), own.begin(), own.end());
  }
  std::sort(discrete.begin(), discrete.end());
  discrete.erase(std::unique(discrete.begin(), discrete.end()), discrete.end());
  return discrete;
}

nlohmann::json PooledGate::to_json() const {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& member : members_) {
    nlohmann::json gate = member->to_json();
    gate["kind"] = member->kind();
    members.push_back(std::move(gate));
  }
  return {{"weights", vector_to_json(weights_)}, {"members", members}};
}

std::shared_ptr<const PooledGate> PooledGate::from_json(const nlohmann::json& document,
                                                        const GateReader& read_gate) {
  return reading_model_part("pooled gate", [&] {
    const auto& list = json_member(document, "members");
    if (!list.is_array()) throw ModelFormatError("pooled gate: members is not a list");
    std::vector<std::shared_ptr<const ConditionalGate>> members;
    for (const auto& member : list) {
      members.push_back(read_gate(json_member(member, "kind").get<std::string>(), member));
    }
    return std::make_shared<const PooledGate>(
        std::move(members), vector_from_json(json_member(document, "weights"), "pool weights"));
  });
}

bool can_pool(const ConditionalMixture& a, const ConditionalMixture& b) {
  const auto atom_value = [](const ConditionalMixture& m) {
    return m.atom() ? std::optional<double>(m.atom()->value) : std::nullopt;
  };
  return same_scaling(a.x_scaling(), b.x_scaling()) && same_scaling(a.y_scaling(), b.y_scaling()) &&
         same_kernels(a.output_kernels(), b.output_kernels()) && atom_value(a) == atom_value(b);
}

ConditionalMixture pool_mixtures(const std::vector<const ConditionalMixture*>& members,
                                 const Vector& weights) {
  if (members.empty() || static_cast<Index>(members.size()) != weights.size()) {
    throw InvalidArgument("a pool needs one weight per member");
  }
  const ConditionalMixture& first = *members.front();
  Index components = 0;
  for (const ConditionalMixture* member : members) {
    if (!can_pool(*member, first)) {
      throw InvalidArgument(
          "the members of a pool must share their standardisations and output kernels");
    }
    components += member->n_components();
  }
  Matrix centers(first.output_dim(), components);
  Matrix scales(first.output_dim(), components);
  std::vector<std::shared_ptr<const ConditionalGate>> gates;
  std::vector<TrendGroup> groups;
  // The members share their atom (can_pool): its components are every member's.
  std::optional<OutputAtom> atom;
  if (first.atom()) atom = OutputAtom{first.atom()->value, {}};
  Index offset = 0;
  for (const ConditionalMixture* member : members) {
    centers.middleCols(offset, member->n_components()) = member->centers();
    scales.middleCols(offset, member->n_components()) = member->scales();
    gates.push_back(member->shared_gate());
    for (TrendGroup group : member->trend_groups()) {
      group.first_component += offset;
      groups.push_back(std::move(group));
    }
    if (atom) {
      for (const Index k : member->atom()->components) atom->components.push_back(offset + k);
    }
    offset += member->n_components();
  }
  MixtureOutputs outputs = MixtureOutputs::gaussian(std::move(centers), std::move(scales))
                               .with_groups(std::move(groups))
                               .with_output_kernels(first.output_kernels());
  if (atom) outputs = std::move(outputs).with_atom(std::move(*atom));
  return ConditionalMixture(first.x_scaling(), first.y_scaling(),
                            std::make_shared<const PooledGate>(std::move(gates), weights),
                            std::move(outputs));
}

}  // namespace cdens

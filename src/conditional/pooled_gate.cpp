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
                       const Vector& weights, std::vector<Standardizer> input_scalings)
    : members_(std::move(members)), input_scalings_(std::move(input_scalings)) {
  if (members_.empty() || static_cast<Index>(members_.size()) != weights.size()) {
    throw InvalidArgument("pooled gate: one weight per member gate is needed");
  }
  if (!input_scalings_.empty() && input_scalings_.size() != members_.size()) {
    throw InvalidArgument("pooled gate: one input standardisation per member gate, or none");
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
  for (const Standardizer& scaling : input_scalings_) {
    if (scaling.dimension() != members_.front()->input_dim()) {
      throw InvalidArgument("pooled gate: an input standardisation of another dimension");
    }
  }
}

void PooledGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  Index first = 0;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    const Index count = members_[c]->n_components();
    auto rows = out.middleRows(first, count);
    if (input_scalings_.empty()) {
      members_[c]->log_weights(x, rows);
    } else {
      members_[c]->log_weights(input_scalings_[c].transform(x), rows);
    }
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
    members.push_back(
        {members_[c], weights_(static_cast<Index>(c)),
         input_scalings_.empty() ? std::nullopt : std::optional<Standardizer>(input_scalings_[c])});
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
  nlohmann::json document = {{"weights", vector_to_json(weights_)}, {"members", members}};
  if (!input_scalings_.empty()) {
    nlohmann::json scalings = nlohmann::json::array();
    for (const Standardizer& scaling : input_scalings_) scalings.push_back(scaling.to_json());
    document["input_scalings"] = std::move(scalings);
  }
  return document;
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
    std::vector<Standardizer> input_scalings;
    if (document.contains("input_scalings")) {
      const auto& scalings = document.at("input_scalings");
      if (!scalings.is_array()) throw ModelFormatError("pooled gate: input_scalings is not a list");
      for (const auto& scaling : scalings)
        input_scalings.push_back(Standardizer::from_json(scaling));
    }
    return std::make_shared<const PooledGate>(
        std::move(members), vector_from_json(json_member(document, "weights"), "pool weights"),
        std::move(input_scalings));
  });
}

bool can_pool(const ConditionalMixture& a, const ConditionalMixture& b) {
  const auto atom_value = [](const ConditionalMixture& m) {
    return m.atom() ? std::optional<double>(m.atom()->value) : std::nullopt;
  };
  if (a.input_dim() != b.input_dim() || a.output_dim() != b.output_dim() ||
      !same_kernels(a.output_kernels(), b.output_kernels()) || atom_value(a) != atom_value(b)) {
    return false;
  }
  if (same_scaling(a.x_scaling(), b.x_scaling()) && same_scaling(a.y_scaling(), b.y_scaling())) {
    return true;
  }
  // Members of their own standardisations move their groups by trends, which an atom and a
  // discrete output do not take.
  const auto& kernels = a.output_kernels();
  return !a.atom() && std::none_of(kernels.begin(), kernels.end(),
                                   [](const ColumnKernel& kernel) { return kernel.is_discrete(); });
}

ConditionalMixture pool_mixtures(const std::vector<const ConditionalMixture*>& members,
                                 const Vector& weights) {
  if (members.empty() || static_cast<Index>(members.size()) != weights.size()) {
    throw InvalidArgument("a pool needs one weight per member");
  }
  const ConditionalMixture& first = *members.front();
  Index components = 0;
  bool same_inputs = true;
  bool same_outputs = true;
  for (const ConditionalMixture* member : members) {
    if (!can_pool(*member, first)) {
      throw InvalidArgument("the members of a pool must share their output kernels and atom");
    }
    components += member->n_components();
    same_inputs = same_inputs && same_scaling(member->x_scaling(), first.x_scaling());
    same_outputs = same_outputs && same_scaling(member->y_scaling(), first.y_scaling());
  }
  // Members of other standardisations keep theirs: the pool's inputs are the raw x (so that a
  // member that keeps a discrete column raw reads its levels as they are, not rebuilt from
  // another standardisation with rounding) and its outputs the first member's.
  const Standardizer x_scaling =
      same_inputs ? first.x_scaling() : Standardizer::identity(first.input_dim());
  Matrix centers(first.output_dim(), components);
  Matrix scales(first.output_dim(), components);
  std::vector<std::shared_ptr<const ConditionalGate>> gates;
  std::vector<Standardizer> input_scalings;
  std::vector<TrendGroup> groups;
  // The members share their atom (can_pool): its components are every member's.
  std::optional<OutputAtom> atom;
  if (first.atom()) atom = OutputAtom{first.atom()->value, {}};
  Index offset = 0;
  for (const ConditionalMixture* member : members) {
    centers.middleCols(offset, member->n_components()) = member->centers();
    scales.middleCols(offset, member->n_components()) = member->scales();
    gates.push_back(member->shared_gate());
    if (!same_inputs) input_scalings.push_back(member->x_scaling());
    for (TrendGroup group : member->trend_groups()) {
      group.first_component += offset;
      if (!same_inputs || !same_outputs) {
        // A transformed group's t = T(y) does not depend on y's standardisation.
        const bool moves_outputs = !same_outputs && !group.transform;
        group.trend = std::make_shared<const PoolMemberTrend>(
            first.input_dim(), first.output_dim(), group.trend,
            same_inputs ? std::nullopt : std::optional<Standardizer>(member->x_scaling()),
            moves_outputs ? std::optional<Standardizer>(member->y_scaling()) : std::nullopt,
            moves_outputs ? std::optional<Standardizer>(first.y_scaling()) : std::nullopt);
      }
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
  return ConditionalMixture(
      x_scaling, first.y_scaling(),
      std::make_shared<const PooledGate>(std::move(gates), weights, std::move(input_scalings)),
      std::move(outputs));
}

}  // namespace cdens

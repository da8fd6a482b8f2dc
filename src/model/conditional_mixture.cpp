#include "cdens/core/conditional_mixture.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "io/csv.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "model/component_reduction.hpp"
#include "model/discrete_outputs.hpp"
#include "model/gaussian_components.hpp"
#include "model/kernel_sum_references.hpp"
#include "model/level_distribution.hpp"
#include "model/neighbour_components.hpp"
#include "model/output_atom.hpp"
#include "model/output_support.hpp"
#include "model/remote_queries.hpp"
#include "model/scalar_mixture.hpp"
#include "model/scalar_output.hpp"
#include "model/transformed_scalar_mixture.hpp"
#include "model/trend_groups.hpp"
#include "model/truncated_normal.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Queries work through the inputs in blocks of at most this many columns, one block per task.
constexpr Index kQueryBlock = 256;

// A block's component weights (K × width doubles) stay within this many entries per thread, 32 MB:
// a query never holds the K × m weights of all its inputs (a model of 2·10⁵ components answering
// the means of 10⁴ rows held 16 GB), only a block's.
constexpr double kBlockWeightEntries = 4.0 * 1024 * 1024;

// The columns per block of a mixture of `components`: as many as kBlockWeightEntries holds, at
// most kQueryBlock, at least one. The blocks depend on the model alone, so that an answer (its
// weights come from products over a block) does not depend on the thread count.
Index query_block_width(Index components) {
  const double fits = kBlockWeightEntries / static_cast<double>(std::max<Index>(components, 1));
  return std::clamp<Index>(static_cast<Index>(fits), 1, kQueryBlock);
}

Index block_count(Index m, Index width) { return (m + width - 1) / width; }

// The largest standard deviation of an output: the variances of its components and of the
// mixture (up to about 10⁴ times its own in standardised units) stay below the largest double,
// 1.8·10³⁰⁸. Data scaled by 10²⁰⁰ fitted, scored, then predicted non-finite variances.
constexpr double kLargestOutputScale = 1e152;

// Queries by kernel neighbours (for_each_scalar_output) take this many inputs per task.
constexpr Index kNeighbourBlock = 8;

// A one-dimensional y of at most this many distinct components (centre, width and trend group)
// answers from every component; more are reduced within the query tolerance (reduced_components).
constexpr Index kExactComponents = 512;

// The kernel-sum engine's means and covariances of a mixture of kernels (kernel_sum_moments):
// within this fraction of the output's kernel width, and of its square.
constexpr double kMomentTolerance = 1e-6;

// The name of the reference of the gate's input kernels (centres over h, row weights c_k) among
// a model's kernel-sum references: the log-densities' sum over the inputs and the moments' sums
// share it (at 10^6 rows and d = 5 a reference and its tree hold 80 MB).
const char* const kInputKernels = "input kernels";

/// The reference of the gate's input kernels: their centres over h with the row weights c_k.
KernelSumReference input_kernels_reference(const GaussianKernelCenters& kernel,
                                           const Vector& weights) {
  return KernelSumReference(kernel.inverse_widths.asDiagonal() * *kernel.centers, weights);
}

}  // namespace

namespace detail {
/// The kernel-neighbour path of a model's one-dimensional queries, built on its first query.
struct NeighbourPath {
  std::once_flag built;
  std::unique_ptr<const NeighbourComponents> components;
};
}  // namespace detail

void require_answerable_output_scales(const Standardizer& y_scaling,
                                      const std::vector<std::string>& names) {
  for (Index d = 0; d < y_scaling.dimension(); ++d) {
    if (y_scaling.scale()(d) > kLargestOutputScale) {
      const std::string name = d < static_cast<Index>(names.size())
                                   ? names[static_cast<std::size_t>(d)]
                                   : "y" + std::to_string(d);
      throw InvalidArgument(
          "output " + name + " has a standard deviation of " + format_number(y_scaling.scale()(d)) +
          ": its variances would overflow (the largest answered is " +
          format_number(kLargestOutputScale) + "); divide it by a power of ten before fitting");
    }
  }
}

namespace {

/// The rules between the parts of the output side, in one place: a trend moves Gaussian outputs
/// only, a transform maps one continuous output, which bounds bound too, and an atom sits on one
/// continuous output that neither moves, nor is mapped, nor is bounded (its point masses stay at
/// a; a trend, a transform or bounds of the continuous part beside it are not built).
void require_compatible_parts(const detail::TrendGroups& groups,
                              const detail::DiscreteOutputs& discrete,
                              const detail::AtomComponents& atom,
                              const detail::OutputSupport& support, Index output_dim) {
  if (support.bounded() && (output_dim != 1 || !discrete.empty())) {
    throw InvalidArgument(
        "conditional mixture: output bounds (y_lower, y_upper) need a one-dimensional "
        "continuous y");
  }
  if (support.bounded() && !atom.empty()) {
    throw InvalidArgument("conditional mixture: an atom takes no output bounds");
  }
  if (groups.has_trend() && !discrete.empty()) {
    throw InvalidArgument("conditional mixture: discrete output y" +
                          std::to_string(discrete.first_row()) + " takes no trend");
  }
  if (groups.has_transform() && (output_dim != 1 || !discrete.empty())) {
    throw InvalidArgument(
        "conditional mixture: an output transform needs a one-dimensional continuous y");
  }
  if (!atom.empty() && (output_dim != 1 || !discrete.empty())) {
    throw InvalidArgument("conditional mixture: an atom needs a one-dimensional continuous y");
  }
  if (!atom.empty() && (groups.has_trend() || groups.has_transform())) {
    throw InvalidArgument("conditional mixture: an atom takes no output trend or transform");
  }
}

}  // namespace

ConditionalMixture::ConditionalMixture(Standardizer x_scaling, Standardizer y_scaling,
                                       std::shared_ptr<const ConditionalGate> gate,
                                       MixtureOutputs outputs)
    : x_scaling_(std::move(x_scaling)),
      y_scaling_(std::move(y_scaling)),
      gate_(std::move(gate)),
      outputs_(std::move(outputs)) {
  use_one_blas_thread();  // before any query's product
  if (!gate_) throw InvalidArgument("conditional mixture without a gate");
  if (gate_->input_dim() != x_scaling_.dimension()) {
    throw InvalidArgument("gate input dimension differs from the input standardiser");
  }
  require_answerable_output_scales(y_scaling_);
  for (const Index d : gate_->discrete_inputs()) {
    if (x_scaling_.mean()(d) != 0.0 || x_scaling_.scale()(d) != 1.0) {
      throw InvalidArgument("conditional mixture: discrete input x" + std::to_string(d) +
                            " must not be standardised (its kernel works on its levels)");
    }
  }
  const Matrix& centers = outputs_.centers();
  const Matrix& scales = outputs_.scales();
  if (centers.rows() != y_scaling_.dimension() || gate_->n_components() != centers.cols()) {
    throw InvalidArgument("conditional mixture: centres, scales and gate disagree in shape");
  }
  log_marginal_ = gate_->log_marginal_weights();
  const double normaliser =
      log_marginal_.size() == n_components() ? log_sum_exp(log_marginal_) : -INFINITY;
  if (!std::isfinite(normaliser)) {
    throw InvalidArgument("the gate's marginal weights are all zero");
  }
  log_marginal_.array() -= normaliser;
  // The parts of the output side, each checking its own; then the rules between them.
  discrete_ = std::make_shared<const detail::DiscreteOutputs>(outputs_.output_kernels(), y_scaling_,
                                                              centers, scales);
  gaussian_ = std::make_shared<const detail::GaussianComponents>(centers, scales,
                                                                 discrete_->gaussian_rows());
  groups_ = std::make_shared<const detail::TrendGroups>(outputs_.groups(), n_components(),
                                                        input_dim(), output_dim());
  atom_ =
      std::make_shared<const detail::AtomComponents>(outputs_.atom(), n_components(), y_scaling_);
  support_ = std::make_shared<const detail::OutputSupport>(outputs_.bounds(), *groups_, y_scaling_);
  require_compatible_parts(*groups_, *discrete_, *atom_, *support_, output_dim());
  component_means_.resize(output_dim(), n_components());
  component_variances_.resize(output_dim(), n_components());
  gaussian_->set_moments(component_means_, component_variances_);
  discrete_->set_moments(component_means_, component_variances_);
  atom_->set_moments(component_means_, component_variances_);
  prepare_merged_components();
  prepare_pool_members();
  // The form of a one-dimensional y, chosen once (the parts allow neither a transform, bounds nor
  // an atom with a discrete y, nor an atom with a transform or bounds).
  scalar_form_ = !discrete_->empty() ? &ConditionalMixture::level_output
                 : !atom_->empty()   ? &ConditionalMixture::atom_output
                                     : &ConditionalMixture::continuous_output_of;
  if (takes_neighbour_path()) neighbour_path_ = std::make_shared<detail::NeighbourPath>();
  kernel_sums_ = std::make_shared<detail::KernelSumReferences>();
}

void ConditionalMixture::prepare_pool_members() {
  const std::vector<PooledMember> pooled = gate_->pooled_members();
  if (pooled.size() != groups_->size() || !atom_->empty() || support_->bounded()) return;
  for (std::size_t g = 0; g < pooled.size(); ++g) {
    if (pooled[g].gate->n_components() != groups_->count(g)) return;
  }
  member_weights_.resize(static_cast<Index>(pooled.size()));
  for (std::size_t g = 0; g < pooled.size(); ++g) {
    // A member of its own standardisations (pooled_gate.hpp) is answered as its fit was: on
    // them, with its own trend.
    const TrendGroup& group = groups_->groups()[g];
    std::shared_ptr<const OutputTrend> trend = group.trend;
    Standardizer y_scaling = y_scaling_;
    if (const auto* member = dynamic_cast<const PoolMemberTrend*>(group.trend.get())) {
      trend = member->inner();
      if (member->output_scaling()) y_scaling = *member->output_scaling();
    }
    MixtureOutputs outputs =
        MixtureOutputs::gaussian(
            outputs_.centers().middleCols(groups_->first(g), groups_->count(g)),
            outputs_.scales().middleCols(groups_->first(g), groups_->count(g)))
            .with_groups({TrendGroup{0, std::move(trend), group.transform}})
            .with_output_kernels(outputs_.output_kernels());
    members_.emplace_back(pooled[g].input_scaling.value_or(x_scaling_), std::move(y_scaling),
                          pooled[g].gate, std::move(outputs));
    member_weights_(static_cast<Index>(g)) = pooled[g].weight;
    members_own_inputs_ = members_own_inputs_ || pooled[g].input_scaling.has_value();
  }
}

bool ConditionalMixture::answers_numerically() const {
  return groups_->has_transform() || support_->bounded();
}

ConditionalMixture ConditionalMixture::with_input_range(InputRange range) const {
  range.require_valid(input_dim());
  ConditionalMixture model = *this;
  model.input_range_ = std::move(range);
  return model;
}

ConditionalMixture ConditionalMixture::with_query_tolerance(double tolerance) const {
  if (!(tolerance >= 0.0 && tolerance < 0.01)) {
    throw InvalidArgument("the query tolerance must lie in [0, 0.01); got " +
                          format_number(tolerance));
  }
  ConditionalMixture model = *this;
  model.query_tolerance_ = tolerance;
  for (ConditionalMixture& member : model.members_) {
    member = member.with_query_tolerance(tolerance);
  }
  // The neighbour path holds components reduced at the tolerance: a new one, built when asked.
  model.neighbour_path_ =
      model.takes_neighbour_path() ? std::make_shared<detail::NeighbourPath>() : nullptr;
  return model;
}

ExtrapolatedRows ConditionalMixture::extrapolated_rows(const MatrixView& x) const {
  require_dimension(x, input_dim(), "x");
  require_finite(x, "x");
  const Index m = x.cols();
  std::vector<char> flagged(static_cast<std::size_t>(m), 0);
  ExtrapolatedRows result;
  if (input_range_) {
    result.beyond_range.assign(static_cast<std::size_t>(input_dim()), 0);
    for (Index i = 0; i < input_dim(); ++i) {
      const double range = input_range_->upper(i) - input_range_->lower(i);
      if (!(range > 0.0)) continue;  // an input the fit ignored as constant
      const double low = input_range_->lower(i) - kExtrapolationMargin * range;
      const double high = input_range_->upper(i) + kExtrapolationMargin * range;
      for (Index j = 0; j < m; ++j) {
        if (x(i, j) < low || x(i, j) > high) {
          ++result.beyond_range[static_cast<std::size_t>(i)];
          flagged[static_cast<std::size_t>(j)] = 1;
        }
      }
    }
  }
  if (gate_->weights_can_all_vanish()) {
    const Matrix z = x_scaling_.transform_query(x, "x");
    std::vector<char> vanished(static_cast<std::size_t>(m), 0);
    for_each_log_weight_block(z, [&](Index start, Matrix& log_weights) {
      for (Index j = 0; j < log_weights.cols(); ++j) {
        vanished[static_cast<std::size_t>(start + j)] = log_weights.col(j).maxCoeff() == -INFINITY;
      }
    });
    for (Index j = 0; j < m; ++j) {
      if (!vanished[static_cast<std::size_t>(j)]) continue;
      ++result.answered_by_marginal;
      flagged[static_cast<std::size_t>(j)] = 1;
    }
  }
  for (Index j = 0; j < m; ++j) {
    if (flagged[static_cast<std::size_t>(j)]) result.rows.push_back(j);
  }
  return result;
}

Index ConditionalMixture::trend_group_end(std::size_t g) const { return groups_->end(g); }

bool ConditionalMixture::has_output_transform() const { return groups_->has_transform(); }

const std::shared_ptr<const OutputTrend>& ConditionalMixture::trend() const {
  return groups_->single("the trend").trend;
}

Matrix ConditionalMixture::standardized_outputs(const MatrixView& y, Index expected_samples) const {
  Matrix t = y_scaling_.transform_query(y, "y");
  if (expected_samples >= 0 && y.cols() != expected_samples) {
    throw InvalidArgument("x has " + std::to_string(expected_samples) + " samples but y has " +
                          std::to_string(y.cols()));
  }
  return t;
}

Matrix ConditionalMixture::trend_at(const MatrixView& x) const {
  const OutputTrend* trend = groups_->single("the trend's shift").trend.get();
  if (!trend) return Matrix::Zero(output_dim(), x.cols());
  return trend->location(x_scaling_.transform_query(x, "x"));
}

Matrix ConditionalMixture::scale_factors_at(const MatrixView& x) const {
  const OutputTrend* trend = groups_->single("the trend's factor").trend.get();
  if (!trend || !trend->has_scale()) return Matrix::Ones(output_dim(), x.cols());
  return trend->scale(x_scaling_.transform_query(x, "x"));
}

Matrix ConditionalMixture::residuals(const MatrixView& x, const MatrixView& y) const {
  groups_->single("the residual");
  Matrix t = standardized_outputs(y, x.cols());
  return groups_->residuals(y, std::move(t), x_scaling_.transform_query(x, "x"));
}

void ConditionalMixture::prepare_merged_components() {
  if (output_dim() != 1 || !discrete_->empty()) return;
  const std::vector<std::size_t> group_of = groups_->component_groups();
  std::vector<Index> order(static_cast<std::size_t>(n_components()));
  std::iota(order.begin(), order.end(), Index{0});
  const auto key = [&](Index k) {
    return std::make_tuple(group_of[static_cast<std::size_t>(k)], outputs_.scales()(0, k),
                           outputs_.centers()(0, k));
  };
  std::sort(order.begin(), order.end(), [&](Index a, Index b) { return key(a) < key(b); });
  // The atom's components are no Gaussians: they join no merged component.
  order.erase(
      std::remove_if(order.begin(), order.end(), [&](Index k) { return atom_->is_atom(k); }),
      order.end());
  merged_of_.assign(static_cast<std::size_t>(n_components()), -1);
  std::vector<double> centers;
  std::vector<double> scales;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || key(order[i]) != key(order[i - 1])) {
      centers.push_back(outputs_.centers()(0, order[i]));
      scales.push_back(outputs_.scales()(0, order[i]));
      merged_groups_.push_back(group_of[static_cast<std::size_t>(order[i])]);
    }
    merged_of_[static_cast<std::size_t>(order[i])] = static_cast<Index>(centers.size()) - 1;
  }
  merged_centers_ = Eigen::Map<const Vector>(centers.data(), static_cast<Index>(centers.size()));
  merged_scales_ = Eigen::Map<const Vector>(scales.data(), static_cast<Index>(scales.size()));
}

double ConditionalMixture::scalar_tolerance() const {
  // A few components are answered as they are; truncated ones are not moment-matched, so a
  // bounded y merges its ties only.
  const bool exact = merged_centers_.size() <= kExactComponents || support_->bounded();
  return exact ? 0.0 : query_tolerance_;
}

detail::ScalarComponentList ConditionalMixture::reduced_components(const VectorView& pi,
                                                                   double tolerance) const {
  Vector weights = Vector::Zero(merged_centers_.size());
  for (Index k = 0; k < pi.size(); ++k) {
    const Index merged = merged_of_[static_cast<std::size_t>(k)];
    if (merged >= 0) weights(merged) += pi(k);
  }
  detail::ScalarComponentList reduced;
  detail::reduce_components(weights, merged_centers_, merged_scales_, merged_groups_, tolerance,
                            reduced);
  return reduced;
}

detail::ScalarMixture ConditionalMixture::scalar_mixture(
    const detail::ScalarComponentList& components, const detail::GroupMaps& maps, Index j) const {
  // A component of group g in t: centre μ_g + f_g c, spread f_g s.
  const auto count = static_cast<Index>(components.weights.size());
  Vector centers(count);
  Vector scales(count);
  for (Index m = 0; m < count; ++m) {
    const auto i = static_cast<std::size_t>(m);
    centers(m) = maps.center(components.groups[i], 0, j, components.centers[i]);
    scales(m) = maps.spread(components.groups[i], 0, j, components.scales[i]);
  }
  // Φ from the table and the trapezoidal sums on a coarser grid where the answers may move by τ
  // anyway (ScalarMixture's constructor); exactly at τ = 0, the brute-force reference.
  return detail::ScalarMixture(Eigen::Map<const Vector>(components.weights.data(), count), centers,
                               scales, scalar_tolerance());
}

detail::TransformedScalarMixture ConditionalMixture::transformed_mixture(
    const detail::ScalarComponentList& components, const detail::GroupMaps& maps, Index j) const {
  // Part 0 holds the untransformed groups (t is y's standardisation), part 1 + g group g's.
  std::vector<detail::TransformedScalarMixture::Part> parts(groups_->size() + 1);
  parts.front().shift = y_scaling_.mean()(0);
  parts.front().scale = y_scaling_.scale()(0);
  for (std::size_t g = 0; g < groups_->size(); ++g) {
    parts[g + 1].transform = groups_->groups()[g].transform.get();
    // A transformed part is truncated to the bounds in its t (the untransformed ones share y's
    // standardisation, which the mixture of parts truncates in y).
    parts[g + 1].lower = support_->lower_t(g);
    parts[g + 1].upper = support_->upper_t(g);
  }
  for (std::size_t m = 0; m < components.weights.size(); ++m) {
    const std::size_t g = components.groups[m];
    auto& part = parts[groups_->groups()[g].transform ? g + 1 : 0];
    part.probabilities.push_back(components.weights[m]);
    part.centers.push_back(maps.center(g, 0, j, components.centers[m]));
    part.scales.push_back(maps.spread(g, 0, j, components.scales[m]));
  }
  return detail::TransformedScalarMixture(std::move(parts), support_->bounds(), scalar_tolerance());
}

std::unique_ptr<detail::ScalarOutput> ConditionalMixture::scalar_output(
    const VectorView& pi, const detail::GroupMaps& maps, Index j) const {
  return (this->*scalar_form_)(pi, maps, j);
}

std::unique_ptr<detail::ScalarOutput> ConditionalMixture::level_output(
    const VectorView& pi, const detail::GroupMaps& /*maps*/, Index /*j*/) const {
  // Not standardised and without trend: the levels are in the user's units.
  return std::make_unique<detail::ScalarOutputInY<detail::LevelDistribution>>(
      discrete_->level_distribution(pi));
}

std::unique_ptr<detail::ScalarOutput> ConditionalMixture::continuous_output_of(
    const VectorView& pi, const detail::GroupMaps& maps, Index j) const {
  return continuous_output(reduced_components(pi, scalar_tolerance()), maps, j);
}

std::unique_ptr<detail::ScalarOutput> ConditionalMixture::continuous_output(
    const detail::ScalarComponentList& components, const detail::GroupMaps& maps, Index j) const {
  if (answers_numerically()) {
    return std::make_unique<detail::ScalarOutputInY<detail::TransformedScalarMixture>>(
        transformed_mixture(components, maps, j));
  }
  return std::make_unique<detail::StandardizedScalarOutput>(
      scalar_mixture(components, maps, j), y_scaling_.mean()(0), y_scaling_.scale()(0));
}

std::unique_ptr<detail::ScalarOutput> ConditionalMixture::atom_output(const VectorView& pi,
                                                                      const detail::GroupMaps& maps,
                                                                      Index j) const {
  // The continuous part normalised to total 1 (none where every weight is the atom's).
  const double atom = atom_->probability(pi);
  const double rest = pi.sum() - atom;
  std::optional<detail::ScalarMixture> continuous;
  if (rest > 0.0) {
    continuous.emplace(scalar_mixture(reduced_components(pi / rest, scalar_tolerance()), maps, j));
  }
  return std::make_unique<detail::AtomScalarOutput>(
      atom / (atom + rest), atom_->value(), atom_->standardized_value(), std::move(continuous),
      y_scaling_.mean()(0), y_scaling_.scale()(0));
}

bool ConditionalMixture::takes_neighbour_path() const {
  if (!(query_tolerance_ > 0.0)) return false;
  if (!members_.empty()) {
    return std::all_of(members_.begin(), members_.end(), [](const ConditionalMixture& member) {
      return member.takes_neighbour_path();
    });
  }
  return kernel_gate() && output_dim() == 1 && !support_->bounded() &&
         merged_centers_.size() > kExactComponents;
}

void ConditionalMixture::prepare_neighbour_path() const {
  if (!members_.empty()) {
    for (const ConditionalMixture& member : members_) member.prepare_neighbour_path();
    return;
  }
  std::call_once(neighbour_path_->built, [&] {
    neighbour_path_->components = std::make_unique<const detail::NeighbourComponents>(
        *gate_->gaussian_kernel(),
        detail::MergedComponents{merged_of_, merged_centers_, merged_scales_, merged_groups_},
        query_tolerance_);
  });
}

const double* ConditionalMixture::member_inputs(std::size_t c, const double* z, Matrix& own) const {
  if (!members_own_inputs_) return z;
  // The pool's inputs are the raw x, which the member standardises as its own queries do.
  own = members_[c].x_scaling_.transform(Eigen::Map<const Matrix>(z, input_dim(), 1));
  return own.data();
}

void ConditionalMixture::neighbour_components(const double* z,
                                              detail::ScalarComponentList& components) const {
  if (members_.empty()) {
    neighbour_path_->components->components_at(z, components);
    return;
  }
  // Σ_c a_c p_c: member c's components, in its group 0, are the pool's group c (whose trend
  // moves them from the member's output units where it has its own).
  components = detail::ScalarComponentList{};
  detail::ScalarComponentList member;
  Matrix own_inputs;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    members_[c].neighbour_components(member_inputs(c, z, own_inputs), member);
    const double weight = member_weights_(static_cast<Index>(c));
    for (std::size_t m = 0; m < member.weights.size(); ++m) {
      components.push_back(weight * member.weights[m], member.centers[m], member.scales[m], c);
    }
  }
}

ConditionalMixture::ComponentsAt ConditionalMixture::neighbour_source() const {
  prepare_neighbour_path();
  return [this](Index /*j*/, const double* z_j, detail::ScalarComponentList& components) {
    neighbour_components(z_j, components);
  };
}

void ConditionalMixture::for_each_scalar_output(
    const MatrixView& z, const detail::GroupMaps& maps,
    const std::function<void(Index, const detail::ScalarOutput&)>& answer,
    const ComponentsAt* given) const {
  if (given == nullptr && !neighbour_path_) {
    for_each_query(z,
                   [&](Index j, const VectorView& pi) { answer(j, *scalar_output(pi, maps, j)); });
    return;
  }
  const ComponentsAt components_at = given ? *given : neighbour_source();
  for_each_neighbour_input(z, [&](Index j, const double* z_j) {
    detail::ScalarComponentList components;
    components_at(j, z_j, components);
    answer(j, *continuous_output(components, maps, j));
  });
}

void ConditionalMixture::for_each_neighbour_input(
    const MatrixView& z, const std::function<void(Index, const double*)>& answer) const {
  const Matrix inputs = z;  // contiguous columns
  parallel_for(resolve_threads(0), block_count(z.cols(), kNeighbourBlock), [&](Index block) {
    const Index end = std::min(z.cols(), (block + 1) * kNeighbourBlock);
    for (Index j = block * kNeighbourBlock; j < end; ++j) answer(j, inputs.col(j).data());
  });
}

Vector ConditionalMixture::atom_probability(const MatrixView& x) const {
  require_own_components("the atom's probability");
  if (atom_->empty()) throw InvalidArgument("this model's y has no atom");
  Vector result(x.cols());
  for_each_probability_block(x_scaling_.transform_query(x, "x"),
                             [&](Index start, const Matrix& pi) {
                               result.segment(start, pi.cols()) = atom_->probabilities(pi);
                             });
  return result;
}

void ConditionalMixture::require_own_components(const char* query) const {
  if (remote_) {
    throw InvalidArgument(std::string(query) +
                          " needs every component of the model, and this one's rows stay on their "
                          "ranks: ask it on one process");
  }
}

namespace detail {
ConditionalMixture RemoteQueries::answering_through(const ConditionalMixture& model,
                                                    std::shared_ptr<const RemoteQueries> remote) {
  ConditionalMixture answering = model;
  answering.remote_ = std::move(remote);
  return answering;
}
}  // namespace detail

void ConditionalMixture::require_scalar_output(const char* query) const {
  if (output_dim() != 1) {
    throw InvalidArgument(std::string(query) + " needs a one-dimensional y; this model has d_y = " +
                          std::to_string(output_dim()));
  }
}

void ConditionalMixture::normalize_log_weights(Eigen::Ref<Vector> log_weights) const {
  // Normalising in log space keeps far-away inputs exact: their log-weights are huge negative
  // numbers whose rounding would otherwise swamp the density.
  const double normaliser = log_sum_exp(log_weights);
  if (normaliser == -INFINITY) {
    log_weights = log_marginal_;
  } else {
    log_weights.array() -= normaliser;
  }
}

void ConditionalMixture::probabilities_of(const MatrixView& z, Eigen::Ref<Matrix> out) const {
  gate_->log_weights(z, out);
  for (Index j = 0; j < out.cols(); ++j) normalize_log_weights(out.col(j));
  exp_flushing_below_in_place(out);
}

Matrix ConditionalMixture::component_probabilities(const MatrixView& x) const {
  require_own_components("the component probabilities");
  const Matrix z = x_scaling_.transform_query(x, "x");
  Matrix probabilities(n_components(), z.cols());
  for_each_probability_block(
      z, [&](Index start, const Matrix& pi) { probabilities.middleCols(start, pi.cols()) = pi; });
  return probabilities;
}

void ConditionalMixture::for_each_log_weight_block(
    const MatrixView& z, const std::function<void(Index, Matrix&)>& answer) const {
  const Index width = query_block_width(n_components());
  parallel_for(resolve_threads(0), block_count(z.cols(), width), [&](Index block) {
    const Index start = block * width;
    Matrix log_weights(n_components(), std::min(width, z.cols() - start));
    gate_->log_weights(z.middleCols(start, log_weights.cols()), log_weights);
    answer(start, log_weights);
  });
}

void ConditionalMixture::for_each_probability_block(
    const MatrixView& z, const std::function<void(Index, const Matrix&)>& answer) const {
  const Index width = query_block_width(n_components());
  parallel_for(resolve_threads(0), block_count(z.cols(), width), [&](Index block) {
    const Index start = block * width;
    Matrix pi(n_components(), std::min(width, z.cols() - start));
    probabilities_of(z.middleCols(start, pi.cols()), pi);
    answer(start, pi);
  });
}

void ConditionalMixture::for_each_query(
    const MatrixView& z, const std::function<void(Index, const VectorView&)>& answer) const {
  const int threads = resolve_threads(0);
  const Index width = query_block_width(n_components());
  if (block_count(z.cols(), width) >= threads) {
    for_each_probability_block(z, [&](Index start, const Matrix& pi) {
      for (Index j = 0; j < pi.cols(); ++j) answer(start + j, pi.col(j));
    });
    return;
  }
  // Fewer blocks than threads (a few rows, each perhaps costly: an output transform's
  // quadrature): the same blocks one after another, each one's rows in parallel.
  for (Index start = 0; start < z.cols(); start += width) {
    Matrix pi(n_components(), std::min(width, z.cols() - start));
    probabilities_of(z.middleCols(start, pi.cols()), pi);
    parallel_for(threads, pi.cols(), [&](Index j) { answer(start + j, pi.col(j)); });
  }
}

std::optional<GaussianKernelCenters> ConditionalMixture::kernel_gate() const {
  std::optional<GaussianKernelCenters> kernel = gate_->gaussian_kernel();
  if (kernel && kernel->centers->cols() + (kernel->broad_weight > 0.0 ? 1 : 0) == n_components() &&
      groups_->size() == 1 && discrete_->empty() && atom_->empty()) {
    return kernel;
  }
  return std::nullopt;
}

std::optional<GaussianKernelCenters> ConditionalMixture::summed_kernel_gate() const {
  std::optional<GaussianKernelCenters> kernel = kernel_gate();
  if (kernel && !answers_numerically() && gaussian_->same_scales(kernel->centers->cols())) {
    return kernel;
  }
  return std::nullopt;
}

Vector ConditionalMixture::kernel_sum_log_pdf(const GaussianKernelCenters& kernel,
                                              const MatrixView& z, const MatrixView& t,
                                              bool marginal) const {
  // A Gaussian-kernel gate (widths h, row weights c, marginal weight ε) and components of one
  // width s (NW-CDE, RKDE, KCDE with continuous inputs). In the residual e = (t − μ(z)) / f(z) of
  // the trend (e = t without one), with Σ_c the sum over components weighted by c_k,
  //
  //   log p(t | z) = log[(1 − ε) e^{J − I} + ε e^{M} / Σ_k c_k] + log N-normaliser − Σ log f(z),
  //   J = log Σ_c e^{−½‖(z − u_k)/h‖² − ½‖(e − v_k)/s‖²},  I = log Σ_c e^{−½‖(z − u_k)/h‖²},
  //   M = log Σ_c e^{−½‖(e − v_k)/s‖²},
  //
  // sums of the kernel-sum engine, each within a third of 1e−6 in log (J − I within two thirds,
  // a convex combination keeps the relative error of its terms), so the log-density is within
  // 1e−6 of the exact one. A broad last component of weight δ mixes in as
  // log[(1 − δ) p_kernels + δ N(e; v_B, diag s_B²)], exact.
  const Index d_x = z.rows();
  const Index d_y = t.rows();
  const Index kernels = kernel.centers->cols();
  Matrix residuals = t;
  Vector log_factor_norms = Vector::Zero(z.cols());
  if (const OutputTrend* trend = groups_->groups().front().trend.get()) {
    residuals -= trend->location(z);
    if (trend->has_scale()) {
      const Matrix factors = trend->scale(z);
      residuals.array() /= factors.array();
      log_factor_norms = -factors.array().log().colwise().sum().transpose();
    }
  }
  const auto inverse_scales = gaussian_->scales().col(0).cwiseInverse().asDiagonal();
  Matrix joint_queries(d_x + d_y, z.cols());
  joint_queries << kernel.inverse_widths.asDiagonal() * z, inverse_scales * residuals;
  const Vector weights = kernel.row_weights ? *kernel.row_weights : Vector(Vector::Ones(kernels));
  KernelSumOptions third_tolerance;
  third_tolerance.log_tolerance = 1e-6 / 3.0;
  // Rows first_row … of the joint points (z-kernels' centres over h, then the components' over s);
  // rows 0 … d_x − 1 are the input kernels, whose reference the moments share.
  const auto log_sums = [&](Index first_row, Index rows) {
    const KernelSumReference& reference =
        first_row == 0 && rows == d_x
            ? (*kernel_sums_)(kInputKernels,
                              [&] { return input_kernels_reference(kernel, weights); })
            : (*kernel_sums_)(
                  "joint rows " + std::to_string(first_row) + " to " +
                      std::to_string(first_row + rows),
                  [&] {
                    Matrix joint_points(d_x + d_y, kernels);
                    joint_points << kernel.inverse_widths.asDiagonal() * *kernel.centers,
                        inverse_scales * gaussian_->centers().leftCols(kernels);
                    return KernelSumReference(joint_points.middleRows(first_row, rows), weights);
                  });
    return gaussian_kernel_log_sums(reference, joint_queries.middleRows(first_row, rows),
                                    third_tolerance)
        .log_sums;
  };
  // The marginal counterpart alone: e^{M} / Σ_k c_k (marginal_log_pdf).
  const auto marginal_part = [&] {
    return Vector(log_sums(d_x, d_y).array() - std::log(weights.sum()));
  };
  Vector result = marginal ? marginal_part() : Vector(log_sums(0, d_x + d_y) - log_sums(0, d_x));
  if (!marginal && kernel.marginal_weight > 0.0) {
    const Vector counterpart = marginal_part();
    const double keep = std::log1p(-kernel.marginal_weight);
    const double mixed = std::log(kernel.marginal_weight);
    for (Index j = 0; j < result.size(); ++j) {
      result(j) = log_add_exp(keep + result(j), mixed + counterpart(j));
    }
  }
  result.array() += gaussian_->log_norm(0);
  if (kernel.broad_weight > 0.0) {
    const Index broad = kernels;
    const double keep = std::log1p(-kernel.broad_weight);
    const double log_broad = std::log(kernel.broad_weight) + gaussian_->log_norm(broad);
    for (Index j = 0; j < result.size(); ++j) {
      const double mahalanobis = ((residuals.col(j) - gaussian_->centers().col(broad)).array() /
                                  gaussian_->scales().col(broad).array())
                                     .square()
                                     .sum();
      result(j) = log_add_exp(keep + result(j), log_broad - 0.5 * mahalanobis);
    }
  }
  return result.array() + log_factor_norms.array() + y_scaling_.log_jacobian();
}

ConditionalMixture::OutputMoments ConditionalMixture::kernel_sum_moments(
    const GaussianKernelCenters& kernel, const MatrixView& z, bool covariances) const {
  // The gate of kernel_sum_log_pdf (kernels K_k(z) = e^{−½‖(z − u_k)/h‖²}, row weights c_k,
  // marginal weight ε, a broad last component of weight δ) over components N(e; v_k, diag s²)
  // of one width s, e = (t − μ(z)) / f(z). Moments of e are linear in the mixture weights, so in
  // the shifted centres a_k = v_k − lo (lo the least centre per output: every c_k a_kd a_kd′ is
  // a kernel-sum weight, ≥ 0) the raw moments are
  //   E[a] = (1 − δ)[(1 − ε) A₁/A₀ + ε Σ_k c_k a_k / Σ_k c_k] + δ a_B,
  //   E[aaᵀ] = (1 − δ)[(1 − ε) A₂/A₀ + ε Σ_k c_k a_k a_kᵀ / Σ_k c_k + diag s²]
  //            + δ (a_B a_Bᵀ + diag s_B²),
  // with A_r = Σ_k c_k a_k^{(r)} K_k(z) (A₂ one per pair of outputs), and Cov[e] = E[aaᵀ] −
  // E[a] E[a]ᵀ (shift-free). The gate's means A_r/A₀ come from the engine in one pass
  // (gaussian_kernel_means), each within 2τ times its largest factor for a sum tolerance τ: E[a]
  // within 2τ·R and Cov[e] within 6τ·R² (R the largest span of the centres); τ =
  // kMomentTolerance · (min s / R)² / 6 puts them within kMomentTolerance·s and
  // kMomentTolerance·s². Then E[t] = μ + f ⊙ E[e] and Cov[t] = diag f · Cov[e] · diag f.
  const Index d_y = output_dim();
  const Index m = z.cols();
  const Index kernels = kernel.centers->cols();
  const Matrix queries = kernel.inverse_widths.asDiagonal() * z;
  const Vector weights = kernel.row_weights ? *kernel.row_weights : Vector(Vector::Ones(kernels));
  const Matrix centers = gaussian_->centers().leftCols(kernels);
  const Vector lowest = centers.rowwise().minCoeff();
  const Matrix shifted = centers.colwise() - lowest;
  const Vector widths = gaussian_->scales().col(0);
  const double span = std::max(shifted.maxCoeff(), widths.minCoeff());
  const double ratio = widths.minCoeff() / span;
  KernelSumOptions options;
  options.log_tolerance = -std::log1p(-kMomentTolerance * ratio * ratio / 6.0);
  // The factors a_d, then a_d a_e for e ≤ d (row pair_row(d, e)), every one asked whether or not
  // the covariances are wanted: the means' pass is then the same, and mean() is
  // mean_and_covariance()'s to the bit.
  const auto pair_row = [&](Index d, Index e) { return d_y + d * (d + 1) / 2 + e; };
  Matrix factors(d_y + d_y * (d_y + 1) / 2, kernels);
  factors.topRows(d_y) = shifted;
  for (Index d = 0; d < d_y; ++d) {
    for (Index e = 0; e <= d; ++e) {
      factors.row(pair_row(d, e)) = shifted.row(d).cwiseProduct(shifted.row(e));
    }
  }
  const KernelSumReference& reference =
      (*kernel_sums_)(kInputKernels, [&] { return input_kernels_reference(kernel, weights); });
  const Matrix gate_means = gaussian_kernel_means(reference, factors, queries, options).means;
  const double gate_share = (1.0 - kernel.broad_weight) * (1.0 - kernel.marginal_weight);
  const double marginal_share = (1.0 - kernel.broad_weight) * kernel.marginal_weight;
  const double total_weight = weights.sum();
  Matrix first = gate_share * gate_means.topRows(d_y);
  first.colwise() += marginal_share * (shifted * weights) / total_weight;
  Vector broad_shift;
  if (kernel.broad_weight > 0.0) {
    broad_shift = gaussian_->centers().col(kernels) - lowest;
    first.colwise() += kernel.broad_weight * broad_shift;
  }
  const detail::GroupMaps maps = groups_->maps(z);
  OutputMoments moments;
  moments.means =
      maps.shifts.front() + (first.colwise() + lowest).cwiseProduct(maps.factors.front());
  if (!covariances) return moments;
  Matrix constant_second =
      marginal_share * shifted * weights.asDiagonal() * shifted.transpose() / total_weight;
  constant_second.diagonal() += (1.0 - kernel.broad_weight) * widths.cwiseAbs2();
  if (kernel.broad_weight > 0.0) {
    constant_second += kernel.broad_weight * broad_shift * broad_shift.transpose();
    constant_second.diagonal() +=
        kernel.broad_weight * gaussian_->scales().col(kernels).cwiseAbs2();
  }
  moments.covariances.resize(d_y * d_y, m);
  for (Index d = 0; d < d_y; ++d) {
    for (Index e = 0; e <= d; ++e) {
      const Eigen::RowVectorXd second = gate_share * gate_means.row(pair_row(d, e));
      Eigen::RowVectorXd covariance =
          (second.array() + constant_second(d, e) - first.row(d).array() * first.row(e).array())
              .matrix();
      if (d == e) covariance = covariance.cwiseMax(0.0);
      covariance.array() *=
          maps.factors.front().row(d).array() * maps.factors.front().row(e).array();
      moments.covariances.row(d + e * d_y) = covariance;
      moments.covariances.row(e + d * d_y) = covariance;
    }
  }
  return moments;
}

Vector ConditionalMixture::log_pdf(const MatrixView& x, const MatrixView& y) const {
  if (remote_) return remote_->log_pdf(x, y);
  return log_pdf_of(x, y, false);
}

Vector ConditionalMixture::marginal_log_pdf(const MatrixView& x, const MatrixView& y) const {
  require_own_components("the marginal log-density");
  return log_pdf_of(x, y, true);
}

Vector ConditionalMixture::log_pdf_of(const MatrixView& x, const MatrixView& y,
                                      bool marginal) const {
  if (!members_.empty()) {  // log Σ_c a_c p_c(y|x); each member checks and standardises x, y
    Vector result = Vector::Constant(x.cols(), -INFINITY);
    for (std::size_t c = 0; c < members_.size(); ++c) {
      const double log_weight = std::log(member_weights_(static_cast<Index>(c)));
      const Vector member = members_[c].log_pdf_of(x, y, marginal);
      for (Index j = 0; j < result.size(); ++j) {
        result(j) = log_add_exp(result(j), log_weight + member(j));
      }
    }
    return result;
  }
  const Matrix z = x_scaling_.transform_query(x, "x");
  const Matrix t = standardized_outputs(y, x.cols());
  if (const std::optional<GaussianKernelCenters> kernel = summed_kernel_gate()) {
    return kernel_sum_log_pdf(*kernel, z, t, marginal);
  }
  // A trend needs Gaussian outputs only, so with one the Gaussian rows are all of t.
  const Matrix gaussian_t = gather_rows(t, gaussian_->rows());
  const bool bounded = support_->bounded();
  const detail::GroupMaps maps =
      groups_->has_trend() || bounded ? groups_->maps(z) : detail::GroupMaps{};
  Vector result(z.cols());
  const Index k_count = n_components();
  for_each_log_weight_block(z, [&](Index start, Matrix& log_weights) {
    const Index width = log_weights.cols();
    Vector joint(k_count);
    Vector target;
    for (Index j = 0; j < width; ++j) {
      // A bounded y outside its bounds has density 0.
      if (bounded && !support_->bounds().contains(y(0, start + j))) {
        result(start + j) = -INFINITY;
        continue;
      }
      auto weights = log_weights.col(j);
      if (marginal) {
        weights = log_marginal_;
      } else {
        normalize_log_weights(weights);
      }
      for (std::size_t g = 0; g < groups_->size(); ++g) {
        if (bounded) {
          // Truncated components, each evaluated from the bound nearer to y (output_support.hpp),
          // in y's units.
          for (Index k = groups_->first(g); k < groups_->end(g); ++k) {
            joint(k) = weights(k) + support_->log_density(
                                        g, maps.center(g, 0, start + j, outputs_.centers()(0, k)),
                                        maps.spread(g, 0, start + j, outputs_.scales()(0, k)),
                                        y(0, start + j));
          }
          continue;
        }
        target = gaussian_t.col(start + j);
        const double log_factor_norm =
            groups_->to_residual(g, y(0, start + j), y_scaling_.log_jacobian(),
                                 groups_->has_trend() ? &maps : nullptr, start + j, target);
        if (log_factor_norm == -INFINITY) {
          joint.segment(groups_->first(g), groups_->count(g)).setConstant(-INFINITY);
          continue;
        }
        for (Index k = groups_->first(g); k < groups_->first(g) + groups_->count(g); ++k) {
          joint(k) = weights(k) + gaussian_->log_norm(k) + log_factor_norm -
                     0.5 * gaussian_->squared_distance(k, target);
        }
      }
      discrete_->add_log_masses(t.col(start + j), joint);
      // At the atom a probability, which takes no Jacobian; elsewhere a density in y's units (a
      // bounded model's is in y's units already).
      const bool at_atom = atom_->apply(y(0, start + j), weights, joint);
      result(start + j) =
          log_sum_exp(joint) + (at_atom || bounded ? 0.0 : y_scaling_.log_jacobian());
    }
  });
  return result;
}

Matrix ConditionalMixture::component_densities_at(const MatrixView& t,
                                                  const detail::GroupMaps* maps, Index j) const {
  const Matrix gaussian_t = gather_rows(t, gaussian_->rows());
  Matrix log_densities(t.cols(), n_components());
  for (std::size_t g = 0; g < groups_->size(); ++g) {
    Matrix e = gaussian_t;
    double log_factor_norm = 0.0;
    if (maps) {
      const auto factors = maps->factors[g].col(j).array();
      e = (e.colwise() - maps->shifts[g].col(j)).array().colwise() / factors;
      log_factor_norm = -factors.log().sum();
    }
    for (Index k = groups_->first(g); k < groups_->first(g) + groups_->count(g); ++k) {
      log_densities.col(k) =
          (gaussian_->log_norm(k) + log_factor_norm - 0.5 * gaussian_->squared_distances(k, e))
              .matrix();
    }
  }
  if (!discrete_->empty()) {
    for (Index p = 0; p < t.cols(); ++p) {
      Vector masses = Vector::Zero(n_components());
      discrete_->add_log_masses(t.col(p), masses);
      log_densities.row(p) += masses.transpose();
    }
  }
  Matrix densities = exp_flushing_below(log_densities);
  atom_->clear_columns(densities);  // a point mass has no density against Lebesgue measure
  return densities;
}

Matrix ConditionalMixture::pdf_grid(const MatrixView& x, const MatrixView& y_grid) const {
  require_own_components("the density on a grid");
  const Matrix z = x_scaling_.transform_query(x, "x");
  const Matrix t = standardized_outputs(y_grid, -1);
  if (t.cols() == 0) throw InvalidArgument("the y grid is empty");
  require_memory_for(
      static_cast<double>(t.cols()) * static_cast<double>(std::max(x.cols(), n_components())),
      "the y grid (its points times the inputs)");
  Matrix result(t.cols(), z.cols());
  const detail::GroupMaps maps = groups_->maps(z);
  if (answers_numerically()) {
    for_each_query(z, [&](Index j, const VectorView& pi) {
      const detail::TransformedScalarMixture mixture =
          transformed_mixture(reduced_components(pi, 0.0), maps, j);
      for (Index p = 0; p < t.cols(); ++p) result(p, j) = mixture.pdf(y_grid(0, p));
    });
    return result;
  }
  const double jacobian = std::exp(y_scaling_.log_jacobian());
  // Component densities at the grid points (P × K), then one product with π; with a trend the
  // grid's residuals move (and scale) with x, so each input gets its own densities. A grid point
  // on the atom gets its probability (an atom has no trend).
  if (!groups_->has_trend()) {
    const Matrix densities = jacobian * component_densities_at(t, nullptr, 0);
    for_each_probability_block(z, [&](Index start, const Matrix& pi) {
      result.middleCols(start, pi.cols()) = densities * pi;
      if (atom_->empty()) return;
      const Vector atom = atom_->probabilities(pi);
      for (Index p = 0; p < t.cols(); ++p) {
        if (atom_->at_atom(y_grid(0, p)))
          result.row(p).segment(start, pi.cols()) = atom.transpose();
      }
    });
    return result;
  }
  for_each_query(z, [&](Index j, const VectorView& pi) {
    result.col(j) = jacobian * component_densities_at(t, &maps, j) * pi;
  });
  return result;
}

Matrix ConditionalMixture::sample(const MatrixView& x, Index n_per_input,
                                  std::uint64_t seed) const {
  if (remote_) return remote_->sample(x, n_per_input, seed);
  if (n_per_input < 1) throw InvalidArgument("the number of samples per input must be at least 1");
  require_memory_for(static_cast<double>(n_per_input) * static_cast<double>(x.cols()) *
                         static_cast<double>(output_dim()),
                     "the number of samples per input");
  const Matrix z = x_scaling_.transform_query(x, "x");
  const detail::GroupMaps maps = groups_->maps(z);
  const std::vector<std::size_t> group_of = groups_->component_groups();
  Matrix draws(output_dim(), z.cols() * n_per_input);
  // A draw of component k at input j into column `column` of the draws.
  const auto draw_of = [&](Index k, Index j, Rng& rng, Index column) {
    auto draw = draws.col(column);
    if (atom_->is_atom(k)) {  // a one-dimensional y
      draw(0) = atom_->value();
      return;
    }
    for (Index d = 0; d < output_dim(); ++d) {
      if (discrete_->is_discrete(d)) {
        draw(d) = discrete_->draw(d, k, rng);
        continue;
      }
      const std::size_t g = group_of[static_cast<std::size_t>(k)];
      if (support_->bounded()) {
        draw(d) = bounded_draw(g, k, maps, j, rng);
        continue;
      }
      const double t = maps.center(g, d, j, gaussian_->draw(d, k, rng));
      draw(d) = groups_->to_output(g, d, t, y_scaling_);
    }
  };
  if (neighbour_path_) {  // each input's components from its kernel neighbours
    prepare_neighbour_path();
    for_each_neighbour_input(z, [&](Index j, const double* z_j) {
      std::vector<Index> components(static_cast<std::size_t>(n_per_input));
      Rng rng(seed, random_stream::indexed(j));
      draw_neighbour_components(z_j, rng, components);
      for (Index r = 0; r < n_per_input; ++r) {
        draw_of(components[static_cast<std::size_t>(r)], j, rng, j * n_per_input + r);
      }
    });
    return draws;
  }
  for_each_query(z, [&](Index j, const VectorView& pi) {
    Rng rng(seed, random_stream::indexed(j));
    std::discrete_distribution<Index> component(pi.data(), pi.data() + n_components());
    for (Index r = 0; r < n_per_input; ++r) {
      draw_of(component(rng.engine()), j, rng, j * n_per_input + r);
    }
  });
  return draws;
}

void ConditionalMixture::draw_neighbour_components(const double* z, Rng& rng,
                                                   std::vector<Index>& draws) const {
  if (members_.empty()) {
    neighbour_path_->components->draw_components(z, rng, draws);
    return;
  }
  // Each draw's member by the pool's weights a_c, then each member's draws of its components
  // (component k of member c is the pool's groups_->first(c) + k).
  std::vector<std::size_t> member_of(draws.size());
  for (std::size_t& member : member_of) {
    double u = rng.uniform();
    member = 0;
    while (member + 1 < members_.size() && u >= member_weights_(static_cast<Index>(member))) {
      u -= member_weights_(static_cast<Index>(member));
      ++member;
    }
  }
  Matrix own_inputs;
  for (std::size_t c = 0; c < members_.size(); ++c) {
    const auto count = std::count(member_of.begin(), member_of.end(), c);
    if (count == 0) continue;
    std::vector<Index> member_draws(static_cast<std::size_t>(count));
    members_[c].draw_neighbour_components(member_inputs(c, z, own_inputs), rng, member_draws);
    std::size_t next = 0;
    for (std::size_t r = 0; r < draws.size(); ++r) {
      if (member_of[r] == c) draws[r] = groups_->first(c) + member_draws[next++];
    }
  }
}

double ConditionalMixture::bounded_draw(std::size_t g, Index k, const detail::GroupMaps& maps,
                                        Index j, Rng& rng) const {
  // By inversion of the truncated component's CDF, from the bound nearer to the draw (a
  // component far beyond a bound puts its draws in a sliver beside it), in y itself or in a
  // transform's t; rounding cannot carry a draw beyond a bound.
  const detail::TruncatedComponent component =
      support_->component(g, maps.center(g, 0, j, outputs_.centers()(0, k)),
                          maps.spread(g, 0, j, outputs_.scales()(0, k)));
  const double u = std::max(rng.uniform(), std::numeric_limits<double>::min());
  const double value = component.at(component.quantile(u));
  const OutputBounds& bounds = support_->bounds();
  return std::clamp(support_->in_y(g) ? value : groups_->to_output(g, 0, value, y_scaling_),
                    bounds.y_lower, bounds.y_upper);
}

Matrix ConditionalMixture::mean(const MatrixView& x) const {
  if (remote_) return remote_->mean_and_variance(x).means;
  if (!members_.empty()) {  // Σ_c a_c E_c[y|x]
    Matrix result = Matrix::Zero(output_dim(), x.cols());
    for (std::size_t c = 0; c < members_.size(); ++c) {
      result += member_weights_(static_cast<Index>(c)) * members_[c].mean(x);
    }
    return result;
  }
  const Matrix z = x_scaling_.transform_query(x, "x");
  if (const std::optional<GaussianKernelCenters> kernel = summed_kernel_gate()) {
    return y_scaling_.inverse_transform(kernel_sum_moments(*kernel, z, false).means);
  }
  if (answers_numerically()) return numerical_moments(z).means;
  const detail::GroupMaps maps = groups_->maps(z);
  // E[t] = Σ_g (Π_g μ_g + f_g ⊙ Σ_{k ∈ g} π_k m_k), Π_g the group's probability.
  Matrix result = Matrix::Zero(output_dim(), z.cols());
  for_each_probability_block(z, [&](Index start, const Matrix& probabilities) {
    auto block = result.middleCols(start, probabilities.cols());
    for (std::size_t g = 0; g < groups_->size(); ++g) {
      const auto pi = probabilities.middleRows(groups_->first(g), groups_->count(g));
      block += maps.shifts[g].middleCols(start, pi.cols()) * pi.colwise().sum().asDiagonal();
      block += (component_means_.middleCols(groups_->first(g), groups_->count(g)) * pi)
                   .cwiseProduct(maps.factors[g].middleCols(start, pi.cols()));
    }
  });
  return y_scaling_.inverse_transform(result);
}

ConditionalMixture::OutputMoments ConditionalMixture::numerical_moments(
    const Matrix& z, const ComponentsAt* given) const {
  const detail::GroupMaps maps = groups_->maps(z);
  OutputMoments result{Matrix(1, z.cols()), Matrix(1, z.cols())};
  if (given != nullptr || neighbour_path_) {
    const ComponentsAt components_at = given ? *given : neighbour_source();
    for_each_neighbour_input(z, [&](Index j, const double* z_j) {
      detail::ScalarComponentList components;
      components_at(j, z_j, components);
      transformed_moments(components, maps, j, result.means(0, j), result.covariances(0, j));
    });
    return result;
  }
  // Components below 1e-16 are left out (their total is at most K · 1e-16).
  for_each_query(z, [&](Index j, const VectorView& pi) {
    detail::ScalarComponentList components;
    for (std::size_t g = 0; g < groups_->size(); ++g) {
      for (Index k = groups_->first(g); k < groups_->end(g); ++k) {
        if (pi(k) > 1e-16) {
          components.push_back(pi(k), outputs_.centers()(0, k), outputs_.scales()(0, k), g);
        }
      }
    }
    transformed_moments(components, maps, j, result.means(0, j), result.covariances(0, j));
  });
  return result;
}

void ConditionalMixture::transformed_moments(const detail::ScalarComponentList& components,
                                             const detail::GroupMaps& maps, Index j, double& mean,
                                             double& variance) const {
  // Every component's mean and variance in y's units: a plain component is
  // N(ȳ + S (μ_g + f_g c_k), S² f_g² s_k²), a transformed one is quadrature; truncated to output
  // bounds, the truncated normal's moments (closed forms or its rule, truncated_normal.hpp) and
  // its rule through the transform. Then E[y] = Σ_k π_k m_k and, centred so that no far-away
  // mean cancels the variance, Var[y] = Σ_k π_k (v_k + (m_k − E[y])²).
  const double shift = y_scaling_.mean()(0);
  const double scale = y_scaling_.scale()(0);
  const std::size_t count = components.weights.size();
  std::vector<double> means(count);
  std::vector<double> variances(count);
  for (std::size_t m = 0; m < count; ++m) {
    const std::size_t g = components.groups[m];
    const OutputTransform* transform = groups_->groups()[g].transform.get();
    const double center = maps.center(g, 0, j, components.centers[m]);
    const double spread = maps.spread(g, 0, j, components.scales[m]);
    const std::optional<detail::TruncatedComponent> truncated =
        support_->bounded() ? std::optional(support_->component(g, center, spread)) : std::nullopt;
    if (truncated && truncated->truncated() && !transform) {
      // A component of an untransformed group is truncated in y itself.
      const detail::TruncatedMoments moments =
          detail::truncated_normal_moments(truncated->a(), truncated->b());
      means[m] = truncated->at_offset(moments.mode, moments.mean_offset);
      variances[m] = truncated->spread() * truncated->spread() * moments.variance;
    } else if (transform) {
      double second = 0.0;
      if (truncated && truncated->truncated()) {
        detail::truncated_transformed_component_moments(*transform, *truncated, means[m], second);
      } else {
        detail::transformed_component_moments(*transform, center, spread, means[m], second);
      }
      variances[m] = std::max(0.0, second - means[m] * means[m]);
    } else {
      means[m] = shift + scale * center;
      variances[m] = scale * scale * spread * spread;
    }
  }
  const std::vector<double>& weights = components.weights;
  double total = 0.0;
  double first = 0.0;
  for (std::size_t m = 0; m < count; ++m) {
    total += weights[m];
    first += weights[m] * means[m];
  }
  mean = first / total;
  variance = 0.0;
  for (std::size_t m = 0; m < count; ++m) {
    variance += weights[m] * (variances[m] + (means[m] - mean) * (means[m] - mean));
  }
  variance /= total;
}

ConditionalMixture::Moments ConditionalMixture::moments_in_t(const detail::GroupMaps& maps,
                                                             Index j) const {
  Moments moments{component_means_, component_variances_};
  for (std::size_t g = 0; g < groups_->size(); ++g) {
    const Vector factor = maps.factors[g].col(j);
    auto means = moments.means.middleCols(groups_->first(g), groups_->count(g));
    means = (factor.asDiagonal() * means).colwise() + maps.shifts[g].col(j);
    auto variances = moments.variances.middleCols(groups_->first(g), groups_->count(g));
    variances = factor.array().square().matrix().asDiagonal() * variances;
  }
  return moments;
}

ConditionalMixture::OutputMoments ConditionalMixture::mean_and_covariance(
    const MatrixView& x) const {
  if (remote_) return remote_->mean_and_variance(x);
  const Index d = output_dim();
  if (!members_.empty()) {
    // Σ_c a_c (Cov_c + (m_c − m)(m_c − m)ᵀ), centred on the pool's mean m = Σ_c a_c m_c (summed
    // as mean() sums it).
    std::vector<OutputMoments> members;
    OutputMoments result{Matrix::Zero(d, x.cols()), Matrix::Zero(d * d, x.cols())};
    for (std::size_t c = 0; c < members_.size(); ++c) {
      members.push_back(members_[c].mean_and_covariance(x));
      result.means += member_weights_(static_cast<Index>(c)) * members.back().means;
    }
    for (std::size_t c = 0; c < members_.size(); ++c) {
      const double weight = member_weights_(static_cast<Index>(c));
      const Matrix offsets = members[c].means - result.means;
      const Matrix& member = members[c].covariances;
      for (Index e = 0; e < d; ++e) {
        for (Index r = 0; r < d; ++r) {
          result.covariances.row(r + e * d) +=
              weight *
              (member.row(r + e * d).array() + offsets.row(r).array() * offsets.row(e).array())
                  .matrix();
        }
      }
    }
    return result;
  }
  if (answers_numerically()) return numerical_moments(x_scaling_.transform_query(x, "x"));
  const std::optional<GaussianKernelCenters> kernel = summed_kernel_gate();
  if (!kernel) return {mean(x), covariance(x)};
  OutputMoments result = kernel_sum_moments(*kernel, x_scaling_.transform_query(x, "x"), true);
  result.means = y_scaling_.inverse_transform(result.means);
  // Back to the user's units: Cov[y] = S Cov[t] S with S = diag(scale).
  for (Index e = 0; e < d; ++e) {
    for (Index r = 0; r < d; ++r)
      result.covariances.row(r + e * d) *= y_scaling_.scale()(r) * y_scaling_.scale()(e);
  }
  return result;
}

Matrix ConditionalMixture::covariance(const MatrixView& x) const {
  if (remote_) return remote_->mean_and_variance(x).covariances;
  if (!members_.empty() || summed_kernel_gate() || answers_numerically()) {
    return mean_and_covariance(x).covariances;
  }
  const Index d = output_dim();
  const Matrix z = x_scaling_.transform_query(x, "x");
  const detail::GroupMaps maps = groups_->maps(z);
  Matrix result(d * d, z.cols());
  for_each_query(z, [&](Index j, const VectorView& pi) {
    // Cov[t] = Σ_k π_k (diag v_k + (m_k − E[t]) (m_k − E[t])ᵀ) over the components' moments in
    // t, centred: far from the data a trend moves every m_k far from 0, and the uncentred
    // Σ π_k m_k m_kᵀ − E[t] E[t]ᵀ would cancel the variance away (to a negative number).
    const auto [means, variances] = moments_in_t(maps, j);
    const Vector mean = means * pi;
    const Matrix centered = means.colwise() - mean;
    Matrix covariance = centered * pi.asDiagonal() * centered.transpose();
    covariance.diagonal() += variances * pi;
    // Back to the user's units: Cov[y] = S Cov[t] S with S = diag(scale).
    const Vector scale = y_scaling_.scale();
    covariance = scale.asDiagonal() * covariance * scale.asDiagonal();
    result.col(j) = Eigen::Map<const Vector>(covariance.data(), d * d);
  });
  return result;
}

Matrix ConditionalMixture::component_overlaps() const {
  // The product over the dimensions of each part's ∫ K_kd K_ld.
  Matrix overlap = Matrix::Ones(n_components(), n_components());
  gaussian_->multiply_overlaps(overlap);
  discrete_->multiply_overlaps(overlap);
  return overlap;
}

Vector ConditionalMixture::squared_norm(const MatrixView& x) const {
  if (output_dim() == 1) {  // each input's distribution (ScalarOutput::squared_norm)
    ScalarQueries queries;
    queries.squared_norm = true;
    return scalar_answers(x, Matrix(1, 0), queries).squared_norm;
  }
  require_own_components("the squared norm of a multivariate y");
  const Matrix z = x_scaling_.transform_query(x, "x");
  // p_user(y) = p_std(t) |∂t/∂y|, so ∫ p_user² dy = |∂t/∂y| ∫ p_std(t)² dt.
  const double jacobian = std::exp(y_scaling_.log_jacobian());
  const detail::GroupMaps maps = groups_->maps(z);
  Vector result(z.cols());
  // A multivariate y (no atom, transform or bounds: those need a one-dimensional y).
  if (groups_->size() == 1 || !groups_->has_trend()) {
    // p_std(t) = p(e) / Π f with one f for every component: ∫ p_std² dt = ∫ p(e)² de / Π f.
    const Matrix overlap = component_overlaps();
    for_each_probability_block(z, [&](Index start, const Matrix& pi) {
      result.segment(start, pi.cols()) =
          (jacobian * (overlap * pi).cwiseProduct(pi).colwise().sum().array() /
           maps.factors.front().middleCols(start, pi.cols()).colwise().prod().array())
              .transpose();
    });
    return result;
  }
  // Groups with trends of their own (only Gaussian outputs): the components' overlaps in t,
  // N(m_k; m_l, v_k + v_l) per dimension, depend on the input.
  for_each_query(z, [&](Index j, const VectorView& pi) {
    const auto [means, variances] = moments_in_t(maps, j);
    double sum = 0.0;
    for (Index k = 0; k < n_components(); ++k) {
      if (!(pi(k) > 0.0)) continue;
      for (Index l = 0; l < n_components(); ++l) {
        if (!(pi(l) > 0.0)) continue;
        const Eigen::ArrayXd variance = variances.col(k).array() + variances.col(l).array();
        sum += pi(k) * pi(l) *
               std::exp(-0.5 * ((means.col(k) - means.col(l)).array().square() / variance).sum() -
                        0.5 * (variance.log().sum() + static_cast<double>(output_dim()) * kLog2Pi));
      }
    }
    result(j) = jacobian * sum;
  });
  return result;
}

ConditionalMixture::ScalarComponents ConditionalMixture::scalar_components(
    const MatrixView& x) const {
  require_own_components("the scalar components");
  require_scalar_output("the scalar components");
  if (!discrete_->empty()) throw InvalidArgument("the scalar components need a continuous y");
  if (groups_->has_transform()) {
    throw InvalidArgument("the components of a transformed output are not Gaussian in y");
  }
  if (support_->bounded()) {
    throw InvalidArgument("the components of a bounded output are truncated, not Gaussian in y");
  }
  ScalarComponents components{component_probabilities(x), Matrix(n_components(), x.cols()),
                              Matrix(n_components(), x.cols())};
  const detail::GroupMaps maps = groups_->maps(x_scaling_.transform_query(x, "x"));
  const double mean = y_scaling_.mean()(0);
  const double scale = y_scaling_.scale()(0);
  for (Index j = 0; j < x.cols(); ++j) {
    const Moments moments = moments_in_t(maps, j);
    components.centers.col(j) = (mean + scale * moments.means.row(0).array()).transpose();
    components.spreads.col(j) = (scale * moments.variances.row(0).array().sqrt()).transpose();
  }
  // The atom's components sit at its value exactly (its standardisation and back may round).
  if (const auto& atom = outputs_.atom()) {
    for (const Index k : atom->components) components.centers.row(k).setConstant(atom->value);
  }
  return components;
}

Vector ConditionalMixture::cdf(const MatrixView& x, const MatrixView& y) const {
  require_scalar_output("the CDF");
  ScalarQueries queries;
  queries.cdf = true;
  return scalar_answers(x, y, queries).cdf;
}

Vector ConditionalMixture::crps(const MatrixView& x, const MatrixView& y) const {
  require_scalar_output("the CRPS");
  ScalarQueries queries;
  queries.crps = true;
  return scalar_answers(x, y, queries).crps;
}

Matrix ConditionalMixture::quantiles(const MatrixView& x,
                                     const std::vector<double>& probabilities) const {
  require_scalar_output("quantiles");
  require_open_unit_interval(probabilities, "quantile probabilities");
  ScalarQueries queries;
  queries.quantile_probabilities = probabilities;
  return scalar_answers(x, Matrix(1, 0), queries).quantiles;
}

std::vector<HighestDensityRegion> ConditionalMixture::highest_density_regions(
    const MatrixView& x, double coverage) const {
  require_scalar_output("highest-density regions");
  ScalarQueries queries;
  queries.coverages = {coverage};
  return std::move(scalar_answers(x, Matrix(1, 0), queries).regions.front());
}

Vector ConditionalMixture::highest_density_probability(const MatrixView& x,
                                                       const MatrixView& y) const {
  require_scalar_output("highest-density probabilities");
  ScalarQueries queries;
  queries.highest_density_probability = true;
  return scalar_answers(x, y, queries).highest_density_probability;
}

ConditionalMixture::ScalarAnswers ConditionalMixture::ScalarAnswers::sized_for(
    const ScalarQueries& queries, Index m) {
  ScalarAnswers answers;
  answers.quantiles.resize(static_cast<Index>(queries.quantile_probabilities.size()), m);
  answers.regions.assign(queries.coverages.size(),
                         std::vector<HighestDensityRegion>(static_cast<std::size_t>(m)));
  if (queries.cdf) answers.cdf.resize(m);
  if (queries.crps) answers.crps.resize(m);
  if (queries.highest_density_probability) answers.highest_density_probability.resize(m);
  if (queries.squared_norm) answers.squared_norm.resize(m);
  return answers;
}

ConditionalMixture::ScalarAnswers ConditionalMixture::scalar_answers(
    const MatrixView& x, const MatrixView& y, const ScalarQueries& queries) const {
  return scalar_answers_from(x, y, queries, nullptr);
}

ConditionalMixture::ScalarAnswers ConditionalMixture::scalar_answers_from(
    const MatrixView& x, const MatrixView& y, const ScalarQueries& queries,
    const ComponentsAt* given) const {
  if (remote_ && given == nullptr) return remote_->scalar_answers(x, y, queries);
  require_scalar_output("one-dimensional queries");
  if (!queries.quantile_probabilities.empty()) {
    require_open_unit_interval(queries.quantile_probabilities, "quantile probabilities");
  }
  if (!queries.coverages.empty()) require_open_unit_interval(queries.coverages, "coverage");
  const Matrix z = x_scaling_.transform_query(x, "x");
  const bool with_y = queries.cdf || queries.crps || queries.highest_density_probability;
  const Matrix t = with_y ? standardized_outputs(y, x.cols()) : Matrix(1, 0);
  const detail::GroupMaps maps = groups_->maps(z);
  ScalarAnswers answers = ScalarAnswers::sized_for(queries, z.cols());
  const auto answer = [&](Index j, const detail::ScalarOutput& distribution) {
    for (std::size_t r = 0; r < queries.quantile_probabilities.size(); ++r) {
      answers.quantiles(static_cast<Index>(r), j) =
          distribution.quantile(queries.quantile_probabilities[r]);
    }
    for (std::size_t r = 0; r < queries.coverages.size(); ++r) {
      answers.regions[r][static_cast<std::size_t>(j)] =
          distribution.highest_density_region(queries.coverages[r]);
    }
    if (queries.cdf) answers.cdf(j) = distribution.cdf(y(0, j), t(0, j));
    if (queries.crps) answers.crps(j) = distribution.crps(y(0, j), t(0, j));
    if (queries.highest_density_probability) {
      answers.highest_density_probability(j) =
          distribution.highest_density_probability(y(0, j), t(0, j));
    }
    if (queries.squared_norm) answers.squared_norm(j) = distribution.squared_norm();
  };
  for_each_scalar_output(z, maps, answer, given);
  return answers;
}

nlohmann::json ConditionalMixture::to_json() const {
  nlohmann::json gate = gate_->to_json();
  gate["kind"] = gate_->kind();
  nlohmann::json document = {{"x_scaling", x_scaling_.to_json()},
                             {"y_scaling", y_scaling_.to_json()},
                             {"gate", gate},
                             {"centers", matrix_to_json(outputs_.centers())},
                             {"scales", matrix_to_json(outputs_.scales())}};
  groups_->write_json(document);
  discrete_->write_json(document);
  atom_->write_json(document);
  support_->write_json(document);
  if (input_range_) document["input_range"] = input_range_->to_json();
  return document;
}

ConditionalMixture ConditionalMixture::from_json(const nlohmann::json& document,
                                                 const GateReader& read_gate) {
  const auto& gate = json_member(document, "gate");
  const auto& kind = json_member(gate, "kind");
  if (!kind.is_string()) throw ModelFormatError("the gate's kind is not a string");
  const ColumnKernels output_kernels = detail::DiscreteOutputs::kernels_from_json(document);
  std::optional<OutputAtom> atom = detail::AtomComponents::from_json(document);
  return reading_model_part("inconsistent model", [&] {
    Matrix centers = matrix_from_json(json_member(document, "centers"), "centres");
    std::vector<TrendGroup> groups = detail::TrendGroups::from_json(document, centers);
    MixtureOutputs outputs =
        MixtureOutputs::gaussian(std::move(centers),
                                 matrix_from_json(json_member(document, "scales"), "scales"))
            .with_groups(std::move(groups))
            .with_output_kernels(output_kernels)
            .with_bounds(detail::OutputSupport::from_json(document));
    if (atom) outputs = std::move(outputs).with_atom(std::move(*atom));
    ConditionalMixture model(Standardizer::from_json(json_member(document, "x_scaling")),
                             Standardizer::from_json(json_member(document, "y_scaling")),
                             read_gate(kind.get<std::string>(), gate), std::move(outputs));
    // Files written before cdens kept the range of the inputs have none: their queries are never
    // flagged as beyond it.
    if (document.contains("input_range")) {
      return model.with_input_range(InputRange::from_json(document["input_range"]));
    }
    return model;
  });
}

}  // namespace cdens

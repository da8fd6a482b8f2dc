#pragma once
// The conditional mixture, the fitted shape of every conditional estimator (docs/design.md, "Two
// fitted shapes"):
//
//   p(y|x) = Σ_k w_k(x) p_k(y|x) / Σ_k w_k(x),   p_k(y|x) = Π_d K_kd(e_d) |∂e/∂y|,
//   e = (t − μ_g(z)) / f_g(z) for component k of trend group g,
//
// on standardised x (z) and y (t). The mixture is the standardisations, the gate w_k(x)
// (conditional_gate.hpp) and an output side of parts beside the gate, described by one value,
// MixtureOutputs, and built from it into parts each with its own checks, model-file members and
// share of every query:
//
// - the Gaussian components (src/model/gaussian_components.hpp): on every output dimension without
//   a discrete kernel, the factor K_kd = N(e_d; c_kd, s_kd²) of the table of centres and scales
//   (MixtureOutputs::gaussian);
// - the discrete output kernels (src/model/discrete_outputs.hpp; with_output_kernels): on an output
//   dimension with a discrete kernel (column_kernel.hpp, KCDE's declared discrete columns,
//   docs/methods/kcde.md), the kernel's probability mass p_d(y_d | c_kd; λ_d) around the level
//   c_kd, the scales row of that dimension holding λ_d. A discrete dimension is not standardised,
//   takes no trend, and the queries return a probability mass for it (a product of density and
//   mass for mixed y);
// - the output bounds (src/model/output_support.hpp; with_bounds): a one-dimensional continuous y
//   bounded to [y_lower, y_upper] (support.hpp) has every Gaussian component truncated to the
//   bounds and renormalised, so that every answer stays inside them;
// - the trend groups (src/model/trend_groups.hpp; with_trend, with_groups): consecutive components
//   sharing the map from y to e. Group g's output trend (output_trend.hpp: a line, with
//   f = exp(Γ z) for the linear baseline's log-linear spread, or a Gaussian-process mean with its
//   predictive spread; none: μ = 0, f = 1) moves and widens its components with x, and its
//   optional output transform (output_transform.hpp, a one-dimensional continuous y only) makes
//   t = T(y) rather than y's standardisation, the density then carrying T′(y). A model of one
//   group is the plain shape; a pool of several fitted models (auto's stacking) has one group per
//   member;
// - the atom (src/model/output_atom.hpp; with_atom): a one-dimensional continuous y may carry a
//   point mass at one value a (a zero-inflated output). The components it lists are point masses
//   at a rather than Gaussians, so P(y = a | x) = Σ_{k atom} π_k(x) and the other components are
//   the continuous part. Densities are then against the mixed measure (counting measure at a,
//   Lebesgue measure elsewhere): log P(y = a | x) at a, the log-density of the continuous part
//   (which gives {a} no mass) elsewhere; the CDF jumps at a, quantiles are its generalised
//   inverse, and the highest-density regions take the atom first (it adds probability and no
//   length).
//
// The rules between parts (a trend needs Gaussian outputs, a transform one continuous output, an
// atom one continuous output without trend or transform) are checked in one place, the
// mixture's constructor. A new kind of part is its class in
// src/model/ and one member of MixtureOutputs whose default keeps today's shapes: no construction
// changes.
//
// Through the Jacobian |∂e/∂y| densities are reported in the user's units. Each query is written
// once here; estimators only supply the gate, the components (c_k, s_k) and the parts. A model
// with an output transform answers the queries without a closed form numerically
// (transformed_scalar_mixture.hpp).
//
// Edge of the data: weights are combined in log space (log-sum-exp), so a far-away x still gets
// the weights of its nearest components. Where every w_k(x) is exactly zero (an empty ε-ball,
// all LSCDE coefficients rounded to zero), p(y|x) is the gate's marginal mixture
// Σ_k m_k Π_d K_kd / Σ_k m_k, never NaN. A model that knows the range of its training inputs
// (input_range) tells which query rows lie beyond it, or are answered by that fallback
// (extrapolated_rows): the front ends warn of them (docs/design.md, "Beyond the data").

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/output_transform.hpp"
#include "cdens/core/output_trend.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/support.hpp"
#include "cdens/core/types.hpp"

namespace cdens {
class Rng;
namespace detail {
class AtomComponents;
class DiscreteOutputs;
class GaussianComponents;
struct GivenComponents;
struct GroupMaps;
class KernelSumReferences;
struct NeighbourPath;
class OutputSupport;
class RemoteQueries;
class ScalarMixture;
class ScalarOutput;
struct ScalarComponentList;
class TransformedScalarMixture;
class TrendGroups;
}  // namespace detail

/// Throws InvalidArgument where an output's standard deviation (its scale in `y_scaling`) exceeds
/// 10¹⁵²: variances in its units would overflow the largest double. `names` name the outputs
/// (y0, y1, … when empty). Every conditional mixture checks it; a fit may check it first.
void require_answerable_output_scales(const Standardizer& y_scaling,
                                      const std::vector<std::string>& names = {});

/// The components of one trend group: from `first_component` to the next group's first (or the
/// last component), moved and widened by `trend` (null: none), in the variable t = T(y) of
/// `transform` (null: y's standardisation).
struct TrendGroup {
  Index first_component = 0;
  std::shared_ptr<const OutputTrend> trend;
  std::shared_ptr<const OutputTransform> transform = nullptr;
};

/// A point mass of a one-dimensional continuous y at `value` (the user's units): the components
/// listed (increasing indices) are point masses at the value instead of Gaussians, so that
/// P(y = value | x) = Σ_{k in components} π_k(x). A y equal to the value exactly (as a double) is
/// at the atom. docs/methods/kcde.md, "Outputs with an atom".
struct OutputAtom {
  double value = 0.0;
  std::vector<Index> components;
};

/// The output side of a conditional mixture as a value: the parts it is composed of, beside the
/// gate. The components' centres and scales (d_y × K, in standardised output units: of the
/// residual e where there is a trend), the trend groups (by default one, without trend or
/// transform) and the kernel of every output dimension (by default all Gaussian). The mixture's
/// constructor builds each part from it, which checks its own invariants, and checks the rules
/// between parts in one place; InvalidArgument there. A new kind of part is one more member here
/// whose default leaves the shape as it was, so no existing construction changes.
class MixtureOutputs {
 public:
  /// Gaussian components N(e_d; c_kd, s_kd²): `centers` and `scales` d_y × K, scales positive.
  static MixtureOutputs gaussian(Matrix centers, Matrix scales);

  /// These components in one trend group moved and widened by `trend` (null: none), replacing the
  /// groups; the trend maps d_x inputs to d_y outputs of Gaussian kernels.
  MixtureOutputs with_trend(std::shared_ptr<const OutputTrend> trend) const&;
  MixtureOutputs with_trend(std::shared_ptr<const OutputTrend> trend) &&;
  /// These components in trend groups: `groups` in order of their first component, the first at
  /// 0, each non-empty; a trend needs Gaussian outputs, a transform one continuous output.
  MixtureOutputs with_groups(std::vector<TrendGroup> groups) const&;
  MixtureOutputs with_groups(std::vector<TrendGroup> groups) &&;
  /// These components with the kernel of every output dimension (empty: all Gaussian). A discrete
  /// one needs the identity scaling, centres among its levels, its λ as a constant scales row,
  /// and no trend (src/model/discrete_outputs.hpp).
  MixtureOutputs with_output_kernels(ColumnKernels kernels) const&;
  MixtureOutputs with_output_kernels(ColumnKernels kernels) &&;
  /// These components with an atom: the components `atom.components` are point masses at
  /// `atom.value` (their centres and scales are kept but not used). It needs one continuous
  /// output without trend or transform, and at least one component beside the atom's
  /// (src/model/output_atom.hpp).
  MixtureOutputs with_atom(OutputAtom atom) const&;
  MixtureOutputs with_atom(OutputAtom atom) &&;
  /// These components truncated to `bounds` (one continuous output; unbounded by default), each
  /// renormalised on them (src/model/output_support.hpp).
  MixtureOutputs with_bounds(OutputBounds bounds) const&;
  MixtureOutputs with_bounds(OutputBounds bounds) &&;

  const Matrix& centers() const { return centers_; }
  const Matrix& scales() const { return scales_; }
  const std::vector<TrendGroup>& groups() const { return groups_; }
  /// One kernel per output dimension (ColumnKernel() for a Gaussian one).
  const ColumnKernels& output_kernels() const { return output_kernels_; }
  /// The atom, where y has one (with_atom).
  const std::optional<OutputAtom>& atom() const { return atom_; }
  const OutputBounds& bounds() const { return bounds_; }

 private:
  MixtureOutputs(Matrix centers, Matrix scales);

  Matrix centers_;
  Matrix scales_;
  std::vector<TrendGroup> groups_;
  ColumnKernels output_kernels_;
  std::optional<OutputAtom> atom_;
  OutputBounds bounds_;
};

class ConditionalMixture {
 public:
  /// The mixture of `gate` (over standardised inputs) and `outputs`, the gate's K components.
  /// InvalidArgument where the gate, the standardisations and the outputs disagree, or where a
  /// part of the outputs refuses (src/model/gaussian_components.hpp, discrete_outputs.hpp,
  /// trend_groups.hpp) or two parts cannot go together.
  ConditionalMixture(Standardizer x_scaling, Standardizer y_scaling,
                     std::shared_ptr<const ConditionalGate> gate, MixtureOutputs outputs);

  Index input_dim() const { return x_scaling_.dimension(); }
  Index output_dim() const { return y_scaling_.dimension(); }
  Index n_components() const { return outputs_.centers().cols(); }
  const ConditionalGate& gate() const { return *gate_; }
  /// The gate itself, for a model that wraps it (ProjectedGate, SelectedFeaturesGate).
  const std::shared_ptr<const ConditionalGate>& shared_gate() const { return gate_; }
  const Standardizer& x_scaling() const { return x_scaling_; }
  const Standardizer& y_scaling() const { return y_scaling_; }
  /// The output side: components, trend groups and output kernels. A model that changes one part
  /// of another builds from it (`model.outputs().with_groups(…)`).
  const MixtureOutputs& outputs() const { return outputs_; }
  const Matrix& centers() const { return outputs_.centers(); }
  const Matrix& scales() const { return outputs_.scales(); }
  /// The output trend of a model of one trend group, or null where there is none;
  /// InvalidArgument for a pooled model, whose groups have one each (trend_groups()).
  const std::shared_ptr<const OutputTrend>& trend() const;
  /// The trend groups: one for every model but a pool.
  const std::vector<TrendGroup>& trend_groups() const { return outputs_.groups(); }
  /// One past the last component of trend group g: the next group's first, or K.
  Index trend_group_end(std::size_t g) const;
  /// The kernel of every output dimension: continuous (Gaussian) or discrete.
  const ColumnKernels& output_kernels() const { return outputs_.output_kernels(); }
  /// Whether a trend group carries an output transform (its components are then not Gaussian in
  /// y: scalar_components() is refused and the CRPS is computed by quadrature).
  bool has_output_transform() const;
  /// The atom of y, where it has one (MixtureOutputs::with_atom).
  const std::optional<OutputAtom>& atom() const { return outputs_.atom(); }
  /// The bounds of a one-dimensional continuous y its components are truncated to (unbounded for
  /// most models).
  const OutputBounds& output_bounds() const { return outputs_.bounds(); }
  /// Whether the output is bounded (its components are then truncated, not Gaussian in y: as
  /// with an output transform, scalar_components() is refused and the CRPS is computed by
  /// quadrature).
  bool has_output_bounds() const { return outputs_.bounds().bounded(); }

  /// The range of the inputs the model was fitted on, where it is known: the models of the
  /// registry's fits (fit_method: the command, Python) and the files they wrote; nothing for a
  /// model built otherwise or read from a file written before cdens kept it.
  const std::optional<InputRange>& input_range() const { return input_range_; }
  /// This model, knowing the range of its training inputs; InvalidArgument for a range that is
  /// not one finite interval per input.
  ConditionalMixture with_input_range(InputRange range) const;
  /// The query rows (columns of x, the user's units) whose answers extrapolate: an input beyond
  /// the model's input range by more than kExtrapolationMargin times that input's range (where
  /// the range is known; an input of zero range is never the reason), or every gate weight
  /// exactly zero so that the marginal mixture answers (checked for a gate whose weights can
  /// all vanish, ConditionalGate::weights_can_all_vanish; others never do). O(m·d_x), plus one
  /// evaluation of the gate for such a gate.
  ExtrapolatedRows extrapolated_rows(const MatrixView& x) const;

  // Queries. Inputs and outputs are in the user's units, one sample per column.

  /// log p(y_j | x_j) for the pairs (x_j, y_j); x is d_x × m, y is d_y × m. For discrete outputs
  /// a log probability mass (−∞ at a value that is none of the levels); with an atom, log P(y =
  /// a | x_j) at the atom and the log-density of the continuous part elsewhere (the density
  /// against the mixed measure).
  Vector log_pdf(const MatrixView& x, const MatrixView& y) const;
  /// log Σ_k m_k p_k(y_j | x_j): the density of the components under the gate's marginal
  /// weights m_k (ConditionalGate::log_marginal_weights, normalised; the weights where every
  /// input weight is zero) in place of its weights at x. For a kernel gate over the rows the
  /// marginal counterpart Σ_k c_k p_k / Σ_k c_k that its marginal weight ε mixes in (and its
  /// broad component beside it at weight δ). By the kernel-sum engine where log_pdf takes it
  /// (within 1e−6), else from every component.
  Vector marginal_log_pdf(const MatrixView& x, const MatrixView& y) const;
  /// p(g | x_j) at every grid point g (columns of `y_grid`, d_y × G): a G × m matrix (with an
  /// atom, exp of log_pdf: its probability at a grid point on the atom).
  Matrix pdf_grid(const MatrixView& x, const MatrixView& y_grid) const;
  /// P(y = a | x_j) of the atom a for every column of x; InvalidArgument for a model without an
  /// atom.
  Vector atom_probability(const MatrixView& x) const;
  /// Component probabilities π_k(x_j) = w_k(x_j) / Σ_l w_l(x_j): K × m.
  Matrix component_probabilities(const MatrixView& x) const;
  /// n draws from p(y | x_j) for each column j: d_y × (m·n), draws for x_j in columns j·n … .
  /// Column j uses its own random stream of `seed`, so the result ignores the thread count. A
  /// model whose one-dimensional queries take kernel neighbours (below) draws each input's
  /// components from them: from a distribution within τ/4 of p(y | x_j) in total variation.
  Matrix sample(const MatrixView& x, Index n_per_input, std::uint64_t seed) const;
  /// E[y | x_j]: d_y × m.
  Matrix mean(const MatrixView& x) const;
  /// Cov[y | x_j], column-major d_y × d_y matrices stacked as (d_y·d_y) × m.
  Matrix covariance(const MatrixView& x) const;
  struct OutputMoments {
    Matrix means;        ///< d_y × m
    Matrix covariances;  ///< (d_y·d_y) × m
  };
  /// mean(x) and covariance(x), to the bit, at the cost of covariance(x) alone (which needs the
  /// means: a pool's members and the kernel-sum path compute them once for both).
  OutputMoments mean_and_covariance(const MatrixView& x) const;
  /// ∫ p(y | x_j)² dy, the first term of the SQ criterion (a sum over the levels of a discrete
  /// dimension; with an atom, against the mixed measure: P(y = a | x_j)² plus the continuous
  /// part's integral): m values.
  Vector squared_norm(const MatrixView& x) const;

  // One-dimensional y only (InvalidArgument otherwise). Each answers from the components of its
  // input reduced within the query tolerance (src/model/component_reduction.hpp): components of
  // a trend group and width s with centres within κ·s of each other merged into one of the same
  // mean and variance, the least probable dropped. Every probability reported (CDF, PIT,
  // highest-density probabilities and the probability of each region) is then within the
  // tolerance of the exact mixture's, and each quantile's exact CDF within it of its probability
  // (at τ ≥ 10⁻⁹ each component's Φ comes from a table within 5.4·10⁻¹² more:
  // docs/methods/kcde.md). A mixture of at most 512 distinct components (centre, width, trend
  // group) answers from all of them, and a model with output bounds merges ties only (truncated
  // components are not moment-matched).

  /// The default query tolerance τ of the one-dimensional queries, in probability.
  static constexpr double kDefaultQueryTolerance = 1e-6;
  /// The query tolerance τ ≥ 0 (0: every component as it is, ties merged: the brute-force
  /// reference).
  double query_tolerance() const { return query_tolerance_; }
  /// This model answering within `tolerance`; InvalidArgument for a negative or non-finite one
  /// or one of 0.01 or more.
  ConditionalMixture with_query_tolerance(double tolerance) const;

  /// P(Y ≤ y_j | x_j) for the pairs (x_j, y_j); y is 1 × m. A step function for a discrete y.
  Vector cdf(const MatrixView& x, const MatrixView& y) const;
  /// Quantiles: row r holds the probabilities[r]-quantile of y | x_j; probabilities in (0, 1).
  /// For a discrete y, the smallest level whose CDF reaches the probability; with an atom, the
  /// generalised inverse min{y : F(y) ≥ p} (the atom for every p within its jump).
  Matrix quantiles(const MatrixView& x, const std::vector<double>& probabilities) const;
  /// Smallest sets of probability `coverage` ∈ (0, 1), one per column of x. For a discrete y, the
  /// fewest levels (each an interval [level, level]) of that probability, the threshold a
  /// probability mass. With an atom of probability π_a > 0 the atom enters first, as the interval
  /// [a, a]: it adds probability and no length, so the shortest set of probability `coverage`
  /// holds it. Where π_a ≥ coverage the region is the atom alone (threshold +∞); otherwise the
  /// atom and the continuous part's superlevel set of probability coverage − π_a (its threshold
  /// a density of the continuous part).
  std::vector<HighestDensityRegion> highest_density_regions(const MatrixView& x,
                                                            double coverage) const;
  /// P(p(Y | x_j) ≥ p(y_j | x_j)) for Y ~ p(·|x_j): the probability of the smallest
  /// highest-density region that holds y_j (uniform on (0, 1) for a calibrated model; for a
  /// discrete y the mass of the levels at least as probable as y_j, which is not: the
  /// evaluation randomises it, scores.hpp); y is 1 × m. With an atom, π_a at the atom (the
  /// smallest region holding it is the atom alone) and π_a plus the continuous part's probability
  /// of density at least p(y_j | x_j) elsewhere.
  Vector highest_density_probability(const MatrixView& x, const MatrixView& y) const;

  /// The one-dimensional queries above that `scalar_answers` answers together.
  struct ScalarQueries {
    std::vector<double> quantile_probabilities;  ///< quantiles' rows, in (0, 1)
    std::vector<double> coverages;               ///< highest-density regions', in (0, 1)
    bool cdf = false;                            ///< these three need y
    bool crps = false;
    bool highest_density_probability = false;
    bool squared_norm = false;  ///< ∫ p(y|x)² dy (squared_norm)
  };
  /// Their answers, each as the query of that name gives it (empty where not asked).
  struct ScalarAnswers {
    Matrix quantiles;                                        ///< probabilities × m
    std::vector<std::vector<HighestDensityRegion>> regions;  ///< [coverage][j]
    Vector cdf;
    Vector crps;
    Vector highest_density_probability;
    Vector squared_norm;

    /// Answers of `queries` for m inputs, sized and not yet filled.
    static ScalarAnswers sized_for(const ScalarQueries& queries, Index m);
  };
  /// Every query `queries` names, from one distribution per input: the reduction of an input's
  /// components and the highest-density search grid are built once for all of them (an
  /// evaluation asks for seven). The same values as the queries one by one. y is 1 × m, or of
  /// no columns where only quantiles and regions are asked.
  ScalarAnswers scalar_answers(const MatrixView& x, const MatrixView& y,
                               const ScalarQueries& queries) const;

  /// Every component of a one-dimensional Gaussian y at the inputs x, in y's units: its
  /// probability π_k(x_j), centre and spread (each K × m), the trend applied; an atom's
  /// components at the atom with spread 0.
  struct ScalarComponents {
    Matrix probabilities;
    Matrix centers;
    Matrix spreads;
  };
  /// InvalidArgument for a model with an output transform.
  ScalarComponents scalar_components(const MatrixView& x) const;
  /// The CRPS ∫ (F(z) − 1{z ≥ y_j})² dz of the pairs (x_j, y_j), in y's units, for a continuous
  /// y: E|Y − y| − ½ E|Y − Y′| on the reduced components (ScalarMixture::crps, with an atom's
  /// point mass), by quadrature for a model with an output transform or bounds, whose components
  /// have no closed form in y. The reduction moves it by at most τ times the span of the
  /// components plus ten of their widths (the probability it moves, over the range it moves in).
  /// InvalidArgument for a discrete y.
  Vector crps(const MatrixView& x, const MatrixView& y) const;

  // The trend of a model of one trend group (InvalidArgument for a pooled model).

  /// μ(z(x)), the trend's shift of every component in standardised output units for inputs x in
  /// the user's units (d_y × m); zeros, without transforming x, where there is no trend.
  Matrix trend_at(const MatrixView& x) const;
  /// f(z(x)), the trend's factor of every component (centre and scale) for inputs x in the
  /// user's units (d_y × m); ones where the trend has no scale.
  Matrix scale_factors_at(const MatrixView& x) const;
  /// The residuals e = (t − μ(z)) / f(z) of the pairs (x_j, y_j) in standardised units (d_y × m):
  /// the variable the components describe.
  Matrix residuals(const MatrixView& x, const MatrixView& y) const;

  nlohmann::json to_json() const;
  static ConditionalMixture from_json(const nlohmann::json& document, const GateReader& read_gate);

 private:
  Matrix standardized_outputs(const MatrixView& y, Index expected_samples) const;
  /// The density in t of every component at the points t (columns): P × K. Component k of group
  /// g has N(e; c_k, diag s_k²) / Π_d f_d with e = (t − μ) / f, μ and f those of g at input j of
  /// `maps`; without maps, μ = 0 and f = 1.
  Matrix component_densities_at(const MatrixView& t, const detail::GroupMaps* maps, Index j) const;
  /// ∫ N(e; c_k, diag s_k²) N(e; c_l, diag s_l²) de for every pair of components: K × K.
  Matrix component_overlaps() const;
  /// Every component's mean and per-dimension variance in t at input j of `maps` (d_y × K
  /// each): m_k = μ_g + f_g ⊙ c_k and v_k = f_g² ⊙ s_k² for component k of group g, with c_k and
  /// s_k² a discrete output's moments over its levels.
  struct Moments {
    Matrix means;
    Matrix variances;
  };
  Moments moments_in_t(const detail::GroupMaps& maps, Index j) const;
  /// Whether a one-dimensional y is answered through the parts of TransformedScalarMixture: its
  /// components are not Gaussian in y (an output transform, or output bounds).
  bool answers_numerically() const;
  /// A draw of the one-dimensional y of component k (of trend group g) at input j of `maps`,
  /// truncated to the output bounds.
  double bounded_draw(std::size_t g, Index k, const detail::GroupMaps& maps, Index j,
                      Rng& rng) const;
  /// E[y] and Var[y] of a one-dimensional y at input j of `maps` for a model whose components
  /// are not Gaussian in y (transformed components' moments by quadrature, truncated ones'
  /// closed forms or quadrature, truncated_normal.hpp), over `components` (probabilities summing
  /// to one; centres and widths before the trend groups' maps).
  void transformed_moments(const detail::ScalarComponentList& components,
                           const detail::GroupMaps& maps, Index j, double& mean,
                           double& variance) const;
  /// The reduced components of a one-dimensional y at row j of a query and its standardised input
  /// z_j (d_x values), into the list given: a source other than the model's gate
  /// (detail::GivenComponents), or its neighbour path (neighbour_source).
  using ComponentsAt = std::function<void(Index, const double*, detail::ScalarComponentList&)>;
  /// E[y] and Var[y] (1 × m each) at standardised inputs z for a model that answers_numerically:
  /// from each input's reduced components, `given` ones or where the model takes the
  /// kernel-neighbour path its own (its queries' tolerance), else from every component of
  /// probability above 10⁻¹⁶.
  OutputMoments numerical_moments(const Matrix& z, const ComponentsAt* given = nullptr) const;
  /// The query tolerance of the one-dimensional queries: 0 for a mixture of at most
  /// kExactComponents distinct components or with output bounds, query_tolerance() otherwise.
  double scalar_tolerance() const;
  /// The components of a one-dimensional Gaussian y for probabilities π (ties merged,
  /// prepare_merged_components) reduced within `tolerance` (component_reduction.hpp), in the
  /// standardised output units of their trend groups.
  detail::ScalarComponentList reduced_components(const VectorView& pi, double tolerance) const;
  /// The Gaussian mixture of the standardised output t of `components` at input j of `maps`.
  detail::ScalarMixture scalar_mixture(const detail::ScalarComponentList& components,
                                       const detail::GroupMaps& maps, Index j) const;
  /// The distribution of a one-dimensional y of `components` at input j of `maps` for a model
  /// with an output transform or bounds: the untransformed groups as one part, each transformed
  /// group as its own.
  detail::TransformedScalarMixture transformed_mixture(
      const detail::ScalarComponentList& components, const detail::GroupMaps& maps, Index j) const;
  /// The distribution of a one-dimensional y at input j of `maps` for component probabilities
  /// π, in the form chosen at construction (src/model/scalar_output.hpp): over the levels of a
  /// discrete y, an atom beside the reduced continuous part, or the reduced components.
  std::unique_ptr<detail::ScalarOutput> scalar_output(const VectorView& pi,
                                                      const detail::GroupMaps& maps, Index j) const;
  std::unique_ptr<detail::ScalarOutput> level_output(const VectorView& pi,
                                                     const detail::GroupMaps& maps, Index j) const;
  std::unique_ptr<detail::ScalarOutput> atom_output(const VectorView& pi,
                                                    const detail::GroupMaps& maps, Index j) const;
  std::unique_ptr<detail::ScalarOutput> continuous_output_of(const VectorView& pi,
                                                             const detail::GroupMaps& maps,
                                                             Index j) const;
  /// The distribution of a continuous one-dimensional y without an atom of `components` (in t
  /// for Gaussian ones, through the transforms and bounds otherwise) at input j of `maps`.
  std::unique_ptr<detail::ScalarOutput> continuous_output(
      const detail::ScalarComponentList& components, const detail::GroupMaps& maps, Index j) const;
  /// Whether the one-dimensional queries find each input's components by kernel neighbours
  /// (src/model/neighbour_components.hpp): a Gaussian-kernel gate over more than
  /// kExactComponents distinct components of a continuous y without atom, bounds or more than
  /// one trend group, at a positive query tolerance; or a pool of such members.
  bool takes_neighbour_path() const;
  /// Builds the neighbour path (once, for every copy of the model; of every member of a pool).
  void prepare_neighbour_path() const;
  /// The reduced components at standardised input z (d_x values) by the neighbour path; a
  /// pool's are its members', weighted, member c's in trend group c.
  void neighbour_components(const double* z, detail::ScalarComponentList& components) const;
  /// Member c's standardised inputs of the pool's z: z itself, or its own standardisation of z
  /// (the raw x) written to `own`, where the members have their own (pooled_gate.hpp).
  const double* member_inputs(std::size_t c, const double* z, Matrix& own) const;
  /// `draws.size()` components (of the K) drawn at standardised input z by the neighbour path
  /// (NeighbourComponents::draw_components; a pool's by member).
  void draw_neighbour_components(const double* z, Rng& rng, std::vector<Index>& draws) const;
  /// The neighbour path's components (built first where they are not yet).
  ComponentsAt neighbour_source() const;
  /// `answer(j, distribution)` for every column j of the standardised inputs z, in parallel:
  /// the distribution of a one-dimensional continuous y at input j of `maps` from the `given`
  /// components, else by the neighbour path where the model takes it, else from the gate's
  /// probabilities (scalar_output).
  void for_each_scalar_output(const MatrixView& z, const detail::GroupMaps& maps,
                              const std::function<void(Index, const detail::ScalarOutput&)>& answer,
                              const ComponentsAt* given = nullptr) const;
  /// scalar_answers with the distributions of for_each_scalar_output(…, given).
  ScalarAnswers scalar_answers_from(const MatrixView& x, const MatrixView& y,
                                    const ScalarQueries& queries, const ComponentsAt* given) const;
  /// `answer(j, z_j)` for every column j of the standardised inputs z (its d_x values
  /// contiguous), in parallel blocks of kNeighbourBlock inputs: the neighbour path's loop.
  void for_each_neighbour_input(const MatrixView& z,
                                const std::function<void(Index, const double*)>& answer) const;
  /// The gate's Gaussian kernels where each component is one kernel's (and a broad one's): one
  /// trend group, no discrete output column and no atom; else none.
  std::optional<GaussianKernelCenters> kernel_gate() const;
  /// kernel_gate() where log_pdf, mean and covariance may sum its kernels with the kernel-sum
  /// engine: no output transform, Gaussian outputs, every component of the same widths.
  std::optional<GaussianKernelCenters> summed_kernel_gate() const;
  /// log_pdf, or with `marginal` marginal_log_pdf.
  Vector log_pdf_of(const MatrixView& x, const MatrixView& y, bool marginal) const;
  /// log p(y|x) (with `marginal`, its marginal counterpart's) at standardised inputs z and
  /// outputs t by the kernel-sum engine, within 1e−6.
  Vector kernel_sum_log_pdf(const GaussianKernelCenters& kernel, const MatrixView& z,
                            const MatrixView& t, bool marginal) const;
  /// E[t | z] (d_y × m) and, with `covariances`, Cov[t | z] ((d_y·d_y) × m, column-major) at
  /// standardised inputs z by the kernel-sum engine, for the summed_kernel_gate():
  /// each mean within kMomentTolerance of its output's kernel width s_d (in t), each covariance
  /// entry within kMomentTolerance·min_d s_d² (the variances are at least s_d², so within
  /// kMomentTolerance of themselves).
  OutputMoments kernel_sum_moments(const GaussianKernelCenters& kernel, const MatrixView& z,
                                   bool covariances) const;
  /// For a pooled gate (ConditionalGate::pooled_members) over a model without an atom or output
  /// bounds: every member as a mixture of its own (its trend group's components, trend and
  /// transform), so that log-densities, means and covariances are the pool's combinations of the
  /// members' answers, each by its fastest path (kernel sums where it has them). The result of
  /// a member query is the pool's to the rounding of the combination.
  void prepare_pool_members();
  /// Merges the components of a one-dimensional Gaussian y of the same trend group, scale and
  /// centre, in that order (reduced_components bins the sorted list).
  void prepare_merged_components();
  /// Turns log w_k(x) into log π_k(x) in place (Σ π = 1), or into the marginal log-weights where
  /// every w_k(x) is zero.
  void normalize_log_weights(Eigen::Ref<Vector> log_weights) const;
  /// π for standardised inputs (K × m), with the marginal fallback.
  void probabilities_of(const MatrixView& z, Eigen::Ref<Matrix> out) const;
  /// Calls `answer(start, log_weights)` for consecutive blocks of the columns of the standardised
  /// inputs z, in parallel, with the gate's log-weights of the block (K × width, columns start
  /// …): no query holds the K × m weights of all its inputs, only a block's per thread (at most
  /// 4·2²⁰ entries, or one column; the blocks depend on K alone).
  void for_each_log_weight_block(const MatrixView& z,
                                 const std::function<void(Index, Matrix&)>& answer) const;
  /// The same with the blocks' component probabilities π (probabilities_of).
  void for_each_probability_block(const MatrixView& z,
                                  const std::function<void(Index, const Matrix&)>& answer) const;
  /// `answer(j, π(z_j))` for every column j of z, in parallel over the same blocks (or over a
  /// block's rows where there are fewer blocks than threads).
  void for_each_query(const MatrixView& z,
                      const std::function<void(Index, const VectorView&)>& answer) const;
  void require_scalar_output(const char* query) const;

  /// Queries from components formed elsewhere (the ranks' parts of a model whose rows stay on
  /// their ranks): src/model/given_components.hpp.
  friend struct detail::GivenComponents;
  /// Queries answered elsewhere (the rows of the model on other ranks):
  /// src/model/remote_queries.hpp.
  friend class detail::RemoteQueries;
  /// InvalidArgument naming `query` where the model answers through a RemoteQueries: a query
  /// that needs every component itself.
  void require_own_components(const char* query) const;

  Standardizer x_scaling_;
  Standardizer y_scaling_;
  std::shared_ptr<const ConditionalGate> gate_;
  MixtureOutputs outputs_;
  // The parts of the output side (immutable, so copies of the model share them).
  std::shared_ptr<const detail::GaussianComponents> gaussian_;
  std::shared_ptr<const detail::DiscreteOutputs> discrete_;
  std::shared_ptr<const detail::TrendGroups> groups_;
  std::shared_ptr<const detail::AtomComponents> atom_;
  std::shared_ptr<const detail::OutputSupport> support_;
  std::optional<InputRange> input_range_;
  double query_tolerance_ = kDefaultQueryTolerance;
  std::vector<ConditionalMixture> members_;  ///< prepare_pool_members: one per trend group
  Vector member_weights_;                    ///< a_c
  bool members_own_inputs_ = false;          ///< whether the members standardise x themselves
  Matrix component_means_;                   ///< d_y × K: the mean of each component
  Matrix component_variances_;  ///< d_y × K: the variance of each component, per dimension
  Vector log_marginal_;         ///< normalised log m_k
  // One-dimensional Gaussian y: the merged component of every component (−1 for an atom's), and
  // each merged one's centre, scale and trend group.
  std::vector<Index> merged_of_;
  Vector merged_centers_;
  Vector merged_scales_;
  std::vector<std::size_t> merged_groups_;
  using ScalarForm = std::unique_ptr<detail::ScalarOutput> (ConditionalMixture::*)(
      const VectorView&, const detail::GroupMaps&, Index) const;
  ScalarForm scalar_form_ = nullptr;  ///< level_output, atom_output or continuous_output_of
  std::shared_ptr<detail::NeighbourPath> neighbour_path_;  ///< where takes_neighbour_path()
  /// The references of the kernel-sum engine's sums (kernel_sum_log_pdf, kernel_sum_moments),
  /// kept from the first query on.
  std::shared_ptr<detail::KernelSumReferences> kernel_sums_;
  /// Where set, the log-densities, one-dimensional queries, moments and draws are its answers.
  std::shared_ptr<const detail::RemoteQueries> remote_;
};

}  // namespace cdens

#pragma once
// The trend groups of a conditional mixture (conditional_mixture.hpp): the part of its output
// side that moves and widens the components with x and maps y before they describe it. Component
// k of group g describes e = (t − μ_g(z)) / f_g(z), where t is y's standardisation or, where the
// group carries an output transform, T(y) (output_transform.hpp), and μ_g, f_g are the group's
// output trend (output_trend.hpp; μ = 0, f = 1 without one). A model of one group is the plain
// shape; a pool (auto's stacking) has several. This part owns what that needs: its checks (groups
// in order and non-empty, trends of matching dimensions), the model file's members ("output_trend",
// "output_transform", "trend_groups", and the "trend"/"scale_trend" of older files), the
// location-scale maps at given inputs, and the residuals.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

/// Every group's shift μ_g(z) and factor f_g(z) (d_y × m each) at standardised inputs z.
struct GroupMaps {
  std::vector<Matrix> shifts;
  std::vector<Matrix> factors;

  /// μ_g + f_g c: where a component of group g at c in e sits in t (output d, input j).
  double center(std::size_t g, Index d, Index j, double c) const {
    return shifts[g](d, j) + factors[g](d, j) * c;
  }
  /// f_g s: how widely a component of group g of scale s in e spreads in t.
  double spread(std::size_t g, Index d, Index j, double s) const { return factors[g](d, j) * s; }
};

class TrendGroups {
 public:
  /// `groups` in order of their first component, the first at 0, each non-empty, of a mixture
  /// of K components on d_x inputs and d_y outputs. InvalidArgument otherwise, or where a trend
  /// maps other dimensions. (What a trend or transform asks of the outputs' kernels the mixture
  /// checks, with the other rules between parts.)
  TrendGroups(std::vector<TrendGroup> groups, Index n_components, Index input_dim,
              Index output_dim);

  const std::vector<TrendGroup>& groups() const { return groups_; }
  std::size_t size() const { return groups_.size(); }
  /// The components of group g: its first one, one past its last, and how many.
  Index first(std::size_t g) const { return groups_[g].first_component; }
  Index end(std::size_t g) const;
  Index count(std::size_t g) const { return end(g) - first(g); }
  /// The group of every component.
  std::vector<std::size_t> component_groups() const;
  /// Whether any group has a trend; whether any has an output transform.
  bool has_trend() const { return has_trend_; }
  bool has_transform() const { return has_transform_; }
  /// The only group (InvalidArgument naming `query` for a pooled model).
  const TrendGroup& single(const char* query) const;

  /// μ_g(z) and f_g(z) of every group at standardised inputs z (zeros and ones without a trend).
  GroupMaps maps(const MatrixView& z) const;
  /// Group g's residual e of one output, in place: `target` holds t (the Gaussian outputs,
  /// standardised), `y` the first output in the user's units. Returns log |∂e/∂y| relative to
  /// the standardisation, whose log-Jacobian is `y_log_jacobian`: −Σ_d log f_d, plus
  /// log T′(y) − `y_log_jacobian` where the group's t is T(y). `maps` (null: no group has a
  /// trend) at input j. −∞ where y lies outside the transform's domain (`target` then unchanged).
  double to_residual(std::size_t g, double y, double y_log_jacobian, const GroupMaps* maps, Index j,
                     Eigen::Ref<Vector> target) const;
  /// The user's value of output d whose t in group g is `t`: T⁻¹(t) or the standardisation's
  /// inverse.
  double to_output(std::size_t g, Index d, double t, const Standardizer& y_scaling) const;
  /// The residuals e of the one group of a model, for y (user's units) standardised as t and
  /// inputs standardised as z: d_y × m, −∞ where y lies outside a transform's domain.
  Matrix residuals(const MatrixView& y, Matrix t, const MatrixView& z) const;

  /// Writes the groups into the model's document: "output_trend" and "output_transform" for a
  /// model of one group, "trend_groups" for a pool.
  void write_json(nlohmann::json& document) const;
  /// The groups of a model's document, with files written before output trends had a kind
  /// ("trend" and "scale_trend"), whose one-component centre moves into the trend (`centers`).
  static std::vector<TrendGroup> from_json(const nlohmann::json& document, Matrix& centers);

 private:
  std::vector<TrendGroup> groups_;
  Index n_components_;
  Index output_dim_;
  bool has_trend_ = false;
  bool has_transform_ = false;
};

}  // namespace cdens::detail

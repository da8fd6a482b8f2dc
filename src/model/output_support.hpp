#pragma once
// The output bounds of a conditional mixture (conditional_mixture.hpp): one part of its output
// side, beside the Gaussian components, the discrete output kernels and the trend groups. With
// bounds [L, U] on a one-dimensional continuous y (support.hpp's OutputBounds, the options
// y_lower and y_upper), every Gaussian component is truncated to them and renormalised: the
// component of group g with centre c and scale s in its residual e describes e on
// [e_L, e_U], e_L = (t_g(L) − μ_g(z)) / f_g(z), with t_g the group's map from y (y's
// standardisation, or its output transform; an end outside the transform's domain is no end
// there: the log transform already keeps y > 0). Its density there is N(e; c, s²) / M, M the
// mass of [e_L, e_U] under N(c, s²) (truncated_normal.hpp). This part owns the checks of the
// bounds, the model file's member "output_bounds", and the bounds of each group in its t.

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/standardizer.hpp"
#include "cdens/core/support.hpp"
#include "model/trend_groups.hpp"
#include "model/truncated_normal.hpp"

namespace cdens::detail {

class OutputSupport {
 public:
  /// `bounds` of the output of a mixture with these trend groups and output standardisation.
  /// InvalidArgument where the bounds are not valid (OutputBounds::require_valid) or an upper
  /// bound lies outside a transform's domain (no y of the model is below it). Whether the output
  /// can take bounds (one continuous dimension) the mixture checks with the rules between parts.
  OutputSupport(OutputBounds bounds, const TrendGroups& groups, const Standardizer& y_scaling);

  const OutputBounds& bounds() const { return bounds_; }
  bool bounded() const { return bounds_.bounded(); }
  /// The bounds in group g's variable t (±∞ where there is none).
  double lower_t(std::size_t g) const { return lower_t_[g]; }
  double upper_t(std::size_t g) const { return upper_t_[g]; }
  /// Whether group g's components are truncated in y itself (a group without transform, whose
  /// t = (y − ȳ) / s maps affinely: a point a sliver beside a bound keeps its digits in y, where
  /// t would round it onto the bound).
  bool in_y(std::size_t g) const { return transforms_[g] == nullptr; }
  /// A component of group g at centre `center` and spread `spread` in t (the trend applied)
  /// truncated to the bounds: in y where in_y(g), in t otherwise.
  TruncatedComponent component(std::size_t g, double center, double spread) const {
    if (in_y(g)) {
      return TruncatedComponent(y_shift_ + y_scale_ * center, y_scale_ * spread, bounds_.y_lower,
                                bounds_.y_upper);
    }
    return TruncatedComponent(center, spread, lower_t_[g], upper_t_[g]);
  }

  /// log p_k(y) of a component of group g at centre `center` and spread `spread` in t (the trend
  /// applied), truncated, at y in the user's units: its truncated density in y itself, or in the
  /// transform's t with the transform's log-derivative (−∞ outside the bounds or the transform's
  /// domain). Every query of a bounded mixture evaluates its components so.
  double log_density(std::size_t g, double center, double spread, double y) const;

  /// Writes "output_bounds" into the model's document where the output is bounded.
  void write_json(nlohmann::json& document) const;
  /// The bounds of a model's document (none where it has no "output_bounds").
  static OutputBounds from_json(const nlohmann::json& document);

 private:
  OutputBounds bounds_;
  std::vector<double> lower_t_;
  std::vector<double> upper_t_;
  std::vector<const OutputTransform*> transforms_;  ///< each group's (null: none)
  double y_shift_ = 0.0;                            ///< ȳ
  double y_scale_ = 1.0;                            ///< s
};

}  // namespace cdens::detail

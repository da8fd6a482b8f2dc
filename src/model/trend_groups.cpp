#include "model/trend_groups.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens::detail {
namespace {

/// The trend of a file written before output trends had a kind: "trend" is A (μ = A z) and
/// "scale_trend" Γ, which widened the components without moving their centres. Only the
/// one-component linear-Gaussian model wrote Γ; its centre becomes the trend's intercept (and the
/// component sits at 0), which is the same density under the location-scale map.
std::shared_ptr<const OutputTrend> legacy_linear_trend(const nlohmann::json& document,
                                                       Matrix& centers) {
  const Matrix scale_slopes = document.contains("scale_trend")
                                  ? matrix_from_json(document["scale_trend"], "scale trend")
                                  : Matrix();
  Matrix slopes = document.contains("trend")
                      ? matrix_from_json(document["trend"], "trend")
                      : Matrix::Zero(scale_slopes.rows(), scale_slopes.cols());
  Vector intercept = Vector::Zero(slopes.rows());
  if (scale_slopes.size() > 0) {
    if (centers.cols() != 1) {
      throw ModelFormatError("a scale trend with several components is not a file cdens wrote");
    }
    if (centers.rows() != intercept.size()) {
      throw ModelFormatError("inconsistent model: the trend and the centres disagree in shape");
    }
    intercept = centers.col(0);
    centers.setZero();
  }
  return std::make_shared<const LinearTrend>(std::move(intercept), std::move(slopes), scale_slopes);
}

}  // namespace

TrendGroups::TrendGroups(std::vector<TrendGroup> groups, Index n_components, Index input_dim,
                         Index output_dim)
    : groups_(std::move(groups)), n_components_(n_components), output_dim_(output_dim) {
  if (groups_.empty() || groups_.front().first_component != 0) {
    throw InvalidArgument("conditional mixture: the first trend group must start at component 0");
  }
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (end(g) <= groups_[g].first_component) {
      throw InvalidArgument("conditional mixture: every trend group needs components, in order");
    }
    const auto& trend = groups_[g].trend;
    if (trend && (trend->output_dim() != output_dim || trend->input_dim() != input_dim)) {
      throw InvalidArgument("conditional mixture: the trend must map d_x inputs to d_y outputs");
    }
    has_trend_ = has_trend_ || trend != nullptr;
    has_transform_ = has_transform_ || groups_[g].transform != nullptr;
  }
}

Index TrendGroups::end(std::size_t g) const {
  return g + 1 < groups_.size() ? groups_[g + 1].first_component : n_components_;
}

std::vector<std::size_t> TrendGroups::component_groups() const {
  std::vector<std::size_t> group_of(static_cast<std::size_t>(n_components_));
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    std::fill_n(group_of.begin() + first(g), count(g), g);
  }
  return group_of;
}

const TrendGroup& TrendGroups::single(const char* query) const {
  if (groups_.size() != 1) {
    throw InvalidArgument(std::string(query) + " belongs to a model of one trend group; this " +
                          "pooled model has " + std::to_string(groups_.size()));
  }
  return groups_.front();
}

GroupMaps TrendGroups::maps(const MatrixView& z) const {
  GroupMaps maps;
  for (const TrendGroup& group : groups_) {
    const OutputTrend* trend = group.trend.get();
    maps.shifts.push_back(trend ? trend->location(z) : Matrix::Zero(output_dim_, z.cols()));
    maps.factors.push_back(trend && trend->has_scale() ? trend->scale(z)
                                                       : Matrix::Ones(output_dim_, z.cols()));
  }
  return maps;
}

double TrendGroups::to_residual(std::size_t g, double y, double y_log_jacobian,
                                const GroupMaps* maps, Index j, Eigen::Ref<Vector> target) const {
  double log_jacobian = 0.0;
  if (const OutputTransform* transform = groups_[g].transform.get()) {
    if (!transform->in_domain(y)) return -INFINITY;
    target(0) = transform->forward(y);
    log_jacobian = transform->log_derivative(y) - y_log_jacobian;
  }
  if (maps) {
    const auto factors = maps->factors[g].col(j).array();
    target = (target.array() - maps->shifts[g].col(j).array()) / factors;
    log_jacobian -= factors.log().sum();
  }
  return log_jacobian;
}

double TrendGroups::to_output(std::size_t g, Index d, double t,
                              const Standardizer& y_scaling) const {
  const OutputTransform* transform = groups_[g].transform.get();
  return transform ? transform->inverse(t) : y_scaling.mean()(d) + y_scaling.scale()(d) * t;
}

Matrix TrendGroups::residuals(const MatrixView& y, Matrix t, const MatrixView& z) const {
  const TrendGroup& group = single("the residual");
  if (const OutputTransform* transform = group.transform.get()) {
    for (Index j = 0; j < t.cols(); ++j) {
      t(0, j) = transform->in_domain(y(0, j)) ? transform->forward(y(0, j)) : -INFINITY;
    }
  }
  const OutputTrend* trend = group.trend.get();
  if (!trend) return t;
  Matrix e = t - trend->location(z);
  if (trend->has_scale()) e.array() /= trend->scale(z).array();
  return e;
}

void TrendGroups::write_json(nlohmann::json& document) const {
  if (groups_.size() == 1) {
    if (groups_.front().trend) document["output_trend"] = groups_.front().trend->to_json();
    if (groups_.front().transform) {
      document["output_transform"] = groups_.front().transform->to_json();
    }
    return;
  }
  // A pooled model: each group's first component, trend (null for none) and transform (only
  // where it has one).
  document["trend_groups"] = nlohmann::json::array();
  for (const TrendGroup& group : groups_) {
    nlohmann::json entry = {
        {"first_component", group.first_component},
        {"output_trend", group.trend ? group.trend->to_json() : nlohmann::json()}};
    if (group.transform) entry["output_transform"] = group.transform->to_json();
    document["trend_groups"].push_back(std::move(entry));
  }
}

std::vector<TrendGroup> TrendGroups::from_json(const nlohmann::json& document, Matrix& centers) {
  std::vector<TrendGroup> groups;
  if (document.contains("trend_groups")) {
    const auto& list = document["trend_groups"];
    if (!list.is_array()) throw ModelFormatError("the model's trend_groups is not a list");
    for (const auto& group : list) {
      const auto& first = json_member(group, "first_component");
      if (!first.is_number_integer()) {
        throw ModelFormatError("a trend group's first_component is not an integer");
      }
      const auto& trend = json_member(group, "output_trend");
      groups.push_back({first.get<Index>(),
                        trend.is_null() ? nullptr : output_trend_from_json(trend),
                        group.contains("output_transform")
                            ? OutputTransform::from_json(group["output_transform"])
                            : nullptr});
    }
  } else if (document.contains("output_trend")) {
    groups.push_back({0, output_trend_from_json(document["output_trend"])});
  } else if (document.contains("trend") || document.contains("scale_trend")) {
    groups.push_back({0, legacy_linear_trend(document, centers)});
  } else {
    groups.push_back({0, nullptr});
  }
  if (document.contains("output_transform")) {
    if (groups.size() != 1) {
      throw ModelFormatError("a pooled model keeps its output transforms in its trend groups");
    }
    groups.front().transform = OutputTransform::from_json(document["output_transform"]);
  }
  return groups;
}

}  // namespace cdens::detail

#include "model/output_support.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"

namespace cdens::detail {

OutputSupport::OutputSupport(OutputBounds bounds, const TrendGroups& groups,
                             const Standardizer& y_scaling)
    : bounds_(bounds) {
  bounds_.require_valid();
  if (y_scaling.dimension() == 1) {
    y_shift_ = y_scaling.mean()(0);
    y_scale_ = y_scaling.scale()(0);
  }
  for (const TrendGroup& group : groups.groups()) {
    const OutputTransform* transform = group.transform.get();
    const auto to_t = [&](double y, double outside) {
      if (!std::isfinite(y)) return y;
      if (!transform) return (y - y_scaling.mean()(0)) / y_scaling.scale()(0);
      return transform->in_domain(y) ? transform->forward(y) : outside;
    };
    if (transform && std::isfinite(bounds_.y_upper) && !transform->in_domain(bounds_.y_upper)) {
      throw InvalidArgument("the upper bound of y, " + format_number(bounds_.y_upper) +
                            ", lies below every value the " + to_string(transform->kind()) +
                            " transform of y allows");
    }
    // A lower bound below a transform's domain (0 for log) bounds nothing there.
    transforms_.push_back(transform);
    lower_t_.push_back(y_scaling.dimension() == 1 ? to_t(bounds_.y_lower, -INFINITY) : -INFINITY);
    upper_t_.push_back(y_scaling.dimension() == 1 ? to_t(bounds_.y_upper, INFINITY) : INFINITY);
  }
}

double OutputSupport::log_density(std::size_t g, double center, double spread, double y) const {
  const TruncatedComponent truncated = component(g, center, spread);
  const OutputTransform* transform = transforms_[g];
  if (!transform) return truncated.log_pdf(y);
  if (!transform->in_domain(y)) return -INFINITY;
  return truncated.log_pdf(transform->forward(y)) + transform->log_derivative(y);
}

void OutputSupport::write_json(nlohmann::json& document) const {
  if (bounded()) document["output_bounds"] = bounds_.to_json();
}

OutputBounds OutputSupport::from_json(const nlohmann::json& document) {
  return document.contains("output_bounds") ? OutputBounds::from_json(document["output_bounds"])
                                            : OutputBounds{};
}

}  // namespace cdens::detail

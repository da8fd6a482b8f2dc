#include "cdens/core/output_transform.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {
namespace {

/// ψ_λ(v) of Yeo & Johnson (2000), eq. (2.1), through expm1/log1p so that λ near 0 or 2 keeps
/// its digits.
double yeo_johnson_map(double lambda, double v) {
  if (v >= 0.0) {
    const double log_base = std::log1p(v);
    return lambda == 0.0 ? log_base : std::expm1(lambda * log_base) / lambda;
  }
  const double power = 2.0 - lambda;
  const double log_base = std::log1p(-v);
  return power == 0.0 ? -log_base : -std::expm1(power * log_base) / power;
}

/// The inverse of ψ_λ: v with ψ_λ(v) = w (ψ_λ(v) has the sign of v).
double yeo_johnson_inverse(double lambda, double w) {
  if (w >= 0.0) return lambda == 0.0 ? std::expm1(w) : std::expm1(std::log1p(lambda * w) / lambda);
  const double power = 2.0 - lambda;
  return power == 0.0 ? -std::expm1(-w) : -std::expm1(std::log1p(-power * w) / power);
}

/// log ψ′_λ(v): (λ − 1) log(1 + v) for v ≥ 0, (1 − λ) log(1 − v) below.
double yeo_johnson_log_derivative(double lambda, double v) {
  return v >= 0.0 ? (lambda - 1.0) * std::log1p(v) : (1.0 - lambda) * std::log1p(-v);
}

double json_number(const nlohmann::json& document, const char* key) {
  const auto& value = json_member(document, key);
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    throw ModelFormatError(std::string("the output transform's ") + key +
                           " is not a finite number");
  }
  return value.get<double>();
}

}  // namespace

std::string to_string(OutputTransformKind kind) {
  return kind == OutputTransformKind::log ? "log" : "yeo_johnson";
}

std::string to_string(OutputTransformChoice choice) {
  switch (choice) {
    case OutputTransformChoice::none:
      return "none";
    case OutputTransformChoice::log:
      return "log";
    case OutputTransformChoice::yeo_johnson:
      return "yeo_johnson";
  }
  return "none";
}

OutputTransform::OutputTransform(OutputTransformKind kind, double lambda, double location,
                                 double spread, double mean, double scale)
    : kind_(kind),
      lambda_(lambda),
      location_(location),
      spread_(spread),
      mean_(mean),
      scale_(scale) {
  if (!(lambda_ >= 0.0 && lambda_ <= 2.0)) {
    throw InvalidArgument("the Yeo–Johnson λ must lie in [0, 2], got " + std::to_string(lambda_));
  }
  if (!(spread_ > 0.0) || !(scale_ > 0.0) || !std::isfinite(spread_) || !std::isfinite(scale_) ||
      !std::isfinite(location_) || !std::isfinite(mean_)) {
    throw InvalidArgument(
        "an output transform needs a finite location and mean and positive "
        "finite spreads");
  }
}

OutputTransform OutputTransform::log(double mean, double scale) {
  return OutputTransform(OutputTransformKind::log, 0.0, 0.0, 1.0, mean, scale);
}

OutputTransform OutputTransform::yeo_johnson(double lambda, double location, double spread,
                                             double mean, double scale) {
  return OutputTransform(OutputTransformKind::yeo_johnson, lambda, location, spread, mean, scale);
}

double OutputTransform::base(double y) const {
  if (kind_ == OutputTransformKind::log) return std::log(y);
  return yeo_johnson_map(lambda_, (y - location_) / spread_);
}

double OutputTransform::inverse(double t) const {
  const double b = mean_ + scale_ * t;
  if (kind_ == OutputTransformKind::log) return std::exp(b);
  return location_ + spread_ * yeo_johnson_inverse(lambda_, b);
}

double OutputTransform::log_derivative(double y) const {
  if (kind_ == OutputTransformKind::log) return -std::log(y) - std::log(scale_);
  return yeo_johnson_log_derivative(lambda_, (y - location_) / spread_) - std::log(spread_) -
         std::log(scale_);
}

nlohmann::json OutputTransform::to_json() const {
  nlohmann::json document = {{"kind", to_string(kind_)}, {"mean", mean_}, {"scale", scale_}};
  if (kind_ == OutputTransformKind::yeo_johnson) {
    document["lambda"] = lambda_;
    document["location"] = location_;
    document["spread"] = spread_;
  }
  return document;
}

std::shared_ptr<const OutputTransform> OutputTransform::from_json(const nlohmann::json& document) {
  const auto& kind = json_member(document, "kind");
  auto transform =
      reading_model_part("output transform", [&]() -> std::shared_ptr<const OutputTransform> {
        if (kind == "log") {
          return std::make_shared<const OutputTransform>(
              log(json_number(document, "mean"), json_number(document, "scale")));
        }
        if (kind == "yeo_johnson") {
          return std::make_shared<const OutputTransform>(
              yeo_johnson(json_number(document, "lambda"), json_number(document, "location"),
                          json_number(document, "spread"), json_number(document, "mean"),
                          json_number(document, "scale")));
        }
        return nullptr;
      });
  if (!transform) throw ModelFormatError("unknown output transform kind " + kind.dump());
  return transform;
}

}  // namespace cdens

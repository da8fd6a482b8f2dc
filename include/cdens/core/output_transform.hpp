#pragma once
// A monotone map of a one-dimensional output before its components are placed (docs/methods/
// kcde.md, "Output transforms"): the components of a trend group with a transform describe
//
//   t = (B(y) − m) / s,   so that p(y | x) = p_t(t(y) | x) · B′(y) / s,
//
// with B one of
//
// - log:          B(y) = log y, for outputs that are positive (y ≤ 0 has density 0);
// - yeo_johnson:  B(y) = ψ_λ((y − a) / b) with ψ the Yeo–Johnson (2000) family
//                   ψ_λ(v) = ((1 + v)^λ − 1) / λ            (v ≥ 0, λ ≠ 0; log(1 + v) at λ = 0)
//                   ψ_λ(v) = −((1 − v)^(2−λ) − 1) / (2 − λ)  (v < 0,  λ ≠ 2; −log(1 − v) at λ = 2)
//                 on the output standardised by its training mean a and deviation b, λ ∈ [0, 2]
//                 (there ψ_λ maps the line onto the line, so every component's mass stays in y;
//                 λ = 1 is the identity, λ < 1 pulls in a long right tail, λ > 1 a left one).
//
// m and s are the mean and deviation of B(y) over the training outputs, so t is standardised as
// the untransformed output is. Every answer stays in y's units: densities carry the Jacobian
// B′(y) / s, quantiles and draws map back through the inverse.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "cdens/core/types.hpp"

namespace cdens {

enum class OutputTransformKind { log, yeo_johnson };

std::string to_string(OutputTransformKind kind);

/// An estimator's option: fit the output as it is, or through a transform of that kind.
enum class OutputTransformChoice { none, log, yeo_johnson };

std::string to_string(OutputTransformChoice choice);

class OutputTransform {
 public:
  /// The log map, t = (log y − m) / s; s > 0, m finite.
  static OutputTransform log(double mean, double scale);
  /// The Yeo–Johnson map of (y − location) / spread with λ ∈ [0, 2]; spread, s > 0.
  static OutputTransform yeo_johnson(double lambda, double location, double spread, double mean,
                                     double scale);

  OutputTransformKind kind() const { return kind_; }
  double lambda() const { return lambda_; }

  /// Whether y lies where B is defined (every y for Yeo–Johnson, y > 0 for log).
  bool in_domain(double y) const { return kind_ != OutputTransformKind::log || y > 0.0; }
  /// B(y) before the standardisation, for y in the domain.
  double base(double y) const;
  /// t(y) = (B(y) − m) / s, for y in the domain.
  double forward(double y) const { return (base(y) - mean_) / scale_; }
  /// y with t(y) = t, for any finite t (±∞ where y overflows).
  double inverse(double t) const;
  /// log t′(y) = log B′(y) − log s, for y in the domain.
  double log_derivative(double y) const;

  nlohmann::json to_json() const;
  /// ModelFormatError for an unknown kind or bad parameters.
  static std::shared_ptr<const OutputTransform> from_json(const nlohmann::json& document);

 private:
  OutputTransform(OutputTransformKind kind, double lambda, double location, double spread,
                  double mean, double scale);

  OutputTransformKind kind_;
  double lambda_;    ///< Yeo–Johnson's λ (0 for log)
  double location_;  ///< a (0 for log)
  double spread_;    ///< b (1 for log)
  double mean_;      ///< m
  double scale_;     ///< s
};

}  // namespace cdens

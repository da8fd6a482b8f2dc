#include "conditional/marginal_mixing.hpp"

#include <cmath>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"

namespace cdens {
namespace {

/// d/dε of log((1 − ε) e^a + ε e^b) = (r − 1) / (1 − ε + ε r) with r = e^(b − a) = e^s, written
/// so that neither e^s nor e^−s overflows.
double derivative_term(double s, double weight) {
  if (s > 0.0) {
    const double inverse = std::exp(-s);
    return (1.0 - inverse) / ((1.0 - weight) * inverse + weight);
  }
  const double ratio = std::exp(s);
  return (ratio - 1.0) / (1.0 - weight + weight * ratio);
}

}  // namespace

std::string to_string(MarginalMixing mixing) {
  return mixing == MarginalMixing::loo ? "loo" : "none";
}

double best_mixing_weight(const VectorView& log_conditional, const VectorView& log_marginal,
                          double minimum, const Vector& weights) {
  if (log_conditional.size() != log_marginal.size() || log_conditional.size() == 0) {
    throw InvalidArgument("marginal mixing needs as many marginal as conditional log densities");
  }
  if (!log_conditional.allFinite() || !log_marginal.allFinite()) {
    throw InvalidArgument("marginal mixing needs finite log densities");
  }
  if (!(minimum >= 0.0 && minimum <= 1.0)) {
    throw InvalidArgument("the smallest marginal weight must lie in [0, 1]");
  }
  if (weights.size() > 0 && weights.size() != log_conditional.size()) {
    throw InvalidArgument("marginal mixing needs one sample weight per log density");
  }
  const Vector gaps = log_marginal - log_conditional;
  const auto slope = [&](double weight) {
    double sum = 0.0;
    for (Index i = 0; i < gaps.size(); ++i) {
      sum += weights.size() > 0 ? weights(i) * derivative_term(gaps(i), weight)
                                : derivative_term(gaps(i), weight);
    }
    return sum;
  };
  // The slope falls from ε = minimum to ε = 1; the maximum is at an end where it keeps its sign.
  if (slope(minimum) <= 0.0) return minimum;
  if (slope(1.0) >= 0.0) return 1.0;
  double low = minimum;
  double high = 1.0;
  // 60 halvings take the interval below 10⁻¹⁸, beyond what the mean can tell apart.
  for (int step = 0; step < 60; ++step) {
    const double middle = 0.5 * (low + high);
    (slope(middle) > 0.0 ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

Vector mixed_log_densities(const VectorView& log_conditional, const VectorView& log_marginal,
                           double weight) {
  const double keep = std::log1p(-weight);
  const double mix = std::log(weight);
  Vector values(log_conditional.size());
  for (Index i = 0; i < log_conditional.size(); ++i) {
    values(i) = log_add_exp(keep + log_conditional(i), mix + log_marginal(i));
  }
  return values;
}

double mixed_negative_log_likelihood(const VectorView& log_conditional,
                                     const VectorView& log_marginal, double weight,
                                     const Vector& weights) {
  const Vector mixed = mixed_log_densities(log_conditional, log_marginal, weight);
  return weights.size() > 0 ? -mixed.dot(weights) / weights.sum() : -mixed.mean();
}

}  // namespace cdens

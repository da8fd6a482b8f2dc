#pragma once
// Inverting a one-dimensional CDF, as the queries of a scalar output (scalar_mixture.hpp,
// transformed_scalar_mixture.hpp) need for their quantiles.

#include <algorithm>
#include <cmath>

namespace cdens::detail {

/// The root of cdf(v) = p between `low` (cdf ≤ p) and `high` (cdf ≥ p): Newton steps on the CDF
/// (its derivative the density `pdf`) from `start` (inside the bracket: a guess, or its middle),
/// kept inside the bracket, bisecting where a step leaves it, until a step or the bracket is
/// within tolerance(v) of the current point v.
template <class Cdf, class Pdf, class Tolerance>
double inverted_cdf(double low, double high, double start, double p, const Cdf& cdf, const Pdf& pdf,
                    const Tolerance& tolerance) {
  double v = start > low && start < high ? start : 0.5 * (low + high);
  for (int iteration = 0; iteration < 1100; ++iteration) {
    const double excess = cdf(v) - p;
    if (excess == 0.0) return v;
    (excess > 0.0 ? high : low) = v;
    const double density = pdf(v);
    double next = density > 0.0 ? v - excess / density : low - 1.0;
    // A Newton step within tolerance is convergence, wherever it lands: one onto the end of the
    // bracket just set (a step below rounding) once bisected the whole bracket down again (40
    // more evaluations).
    if (std::abs(next - v) <= tolerance(v)) return std::clamp(next, low, high);
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    if (std::abs(next - v) <= tolerance(v) || high - low <= tolerance(v)) return next;
    v = next;
  }
  return v;
}

}  // namespace cdens::detail

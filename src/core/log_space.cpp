#include "cdens/core/log_space.hpp"

#include <cmath>

namespace cdens {

double log_sum_exp(const VectorView& values) {
  const double largest = values.maxCoeff();
  if (largest == -INFINITY) return -INFINITY;
  return largest + std::log(exp_flushing_below(values.array() - largest).sum());
}

Matrix exp_flushing_below(const MatrixView& log_values, double cutoff) {
  // Exponentiate everything (vectorised), then zero the entries below the cutoff.
  Matrix values = log_values.array().max(cutoff).exp();
  return (log_values.array() < cutoff).select(0.0, values);
}

}  // namespace cdens

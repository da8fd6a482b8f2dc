#include "cdens/core/log_space.hpp"

#include <cmath>

namespace cdens {

double log_sum_exp(const VectorView& values) {
  const double largest = values.maxCoeff();
  if (largest == -INFINITY) return -INFINITY;
  return largest + std::log(exp_flushing_below(values.array() - largest).sum());
}

Matrix exp_flushing_below(const MatrixView& log_values, double cutoff) {
  Matrix values = log_values;
  exp_flushing_below_in_place(values, cutoff);
  return values;
}

void exp_flushing_below_in_place(Eigen::Ref<Matrix> values, double cutoff) {
  // Exponentiate everything (vectorised), then zero what fell below e^cutoff: exp is monotone,
  // and whatever the vectorised exp returns for arguments below about −709.8 (0 or 5.6e−309,
  // depending on the instruction set) is below e^cutoff for any cutoff ≥ −708.
  const double smallest = std::exp(cutoff);
  values.array() = values.array().exp();
  for (Index j = 0; j < values.cols(); ++j) {
    double* column = values.col(j).data();
    for (Index i = 0; i < values.rows(); ++i) column[i] = column[i] < smallest ? 0.0 : column[i];
  }
}

}  // namespace cdens

#include "core/log_space.hpp"

#include <algorithm>
#include <cmath>

namespace cdens {

double log_sum_exp(const VectorView& values) {
  const double largest = values.maxCoeff();
  if (largest == -INFINITY) return -INFINITY;
  return largest + std::log(exp_flushing_below(values.array() - largest).sum());
}

double log_add_exp(double a, double b) {
  const double larger = std::max(a, b);
  if (larger == -INFINITY) return -INFINITY;
  return larger + std::log1p(std::exp(std::min(a, b) - larger));
}

void log_sum_exp_scaled(const VectorView& values, const VectorView& scales,
                        Eigen::Ref<Vector> out) {
  const double smallest = values.size() > 0 ? values.minCoeff() : INFINITY;
  if (smallest == INFINITY) {
    out.setConstant(-INFINITY);
    return;
  }
  const Eigen::ArrayXd excess = values.array() - smallest;
  for (Index s = 0; s < scales.size(); ++s) {
    out(s) =
        -scales(s) * smallest + std::log((-scales(s) * excess).max(kLogSmallestNormal).exp().sum());
  }
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

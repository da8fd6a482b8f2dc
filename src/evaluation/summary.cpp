#include "evaluation/summary.hpp"

#include <cmath>

namespace cdens::detail {

MeanAndError mean_and_standard_error(const Vector& values) {
  const double n = static_cast<double>(values.size());
  MeanAndError result;
  result.mean = values.mean();
  result.standard_error = std::sqrt((values.array() - result.mean).square().sum() / (n - 1.0) / n);
  if (std::isfinite(result.mean) && std::isfinite(result.standard_error)) return result;
  const double largest = values.cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || !std::isfinite(largest)) return result;
  const Eigen::ArrayXd scaled = values.array() / largest;
  const double mean = scaled.mean();
  result.mean = largest * mean;
  result.standard_error = largest * std::sqrt((scaled - mean).square().sum() / (n - 1.0) / n);
  return result;
}

}  // namespace cdens::detail

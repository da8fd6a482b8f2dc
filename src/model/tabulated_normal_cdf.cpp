#include "model/tabulated_normal_cdf.hpp"

#include <cmath>

namespace cdens::detail {

const NormalCdfTable& NormalCdfTable::instance() {
  static const NormalCdfTable table;
  return table;
}

NormalCdfTable::NormalCdfTable() {
  constexpr double kInverseSqrt2Pi = 0.39894228040143267794;
  const auto count = static_cast<std::size_t>(2.0 * kReach / kStep) + 2;
  values_.resize(count);
  slopes_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double z = -kReach + static_cast<double>(i) * kStep;
    values_[i] = 0.5 * std::erfc(-z / std::sqrt(2.0));
    slopes_[i] = kStep * kInverseSqrt2Pi * std::exp(-0.5 * z * z);
  }
}

}  // namespace cdens::detail

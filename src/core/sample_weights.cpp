#include "core/sample_weights.hpp"

#include <cmath>
#include <limits>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"

namespace cdens {

void validate_sample_weights(const Vector& weights, Index n, const std::string& what,
                             const std::string& row_word, Index first_row) {
  if (weights.size() != n) {
    throw InvalidArgument(what + " has " + std::to_string(weights.size()) + " weights for " +
                          std::to_string(n) + " rows");
  }
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(weights(i)) || weights(i) < 0.0) {
      throw InvalidArgument(what + ": the weight of " + row_word + " " +
                            std::to_string(i + first_row) + " is " + format_number(weights(i)) +
                            "; weights must be non-negative finite numbers");
    }
  }
  if (!(weights.sum() > 0.0)) throw InvalidArgument(what + ": every weight is zero");
}

Vector relative_sample_weights(const Vector& weights, const std::string& what) {
  const double largest = weights.maxCoeff();
  if (largest < std::numeric_limits<double>::min()) {
    throw InvalidArgument(what + ": the largest weight is " + format_number(largest) +
                          ", below the smallest normal double, where the ratios of the weights "
                          "are not representable: scale every weight up (only their ratios "
                          "matter)");
  }
  return weights / largest;
}

double effective_sample_size(const Vector& weights) {
  const double total = weights.sum();
  return total * total / weights.squaredNorm();
}

double weighted_standard_deviation(const Vector& values, const Vector& weights) {
  const double total = weights.sum();
  const double mean = values.dot(weights) / total;
  const double effective_n = effective_sample_size(weights);
  if (!(effective_n > 1.0)) return 0.0;
  const double spread = (values.array() - mean).square().matrix().dot(weights) / total;
  return std::sqrt(spread * effective_n / (effective_n - 1.0));
}

std::vector<Index> positive_weight_rows(const Vector& weights) {
  std::vector<Index> rows;
  for (Index i = 0; i < weights.size(); ++i) {
    if (weights(i) > 0.0) rows.push_back(i);
  }
  return rows;
}

}  // namespace cdens

#pragma once
// The mean of per-pair values and its standard error, shared by evaluations and comparisons.

#include "cdens/core/types.hpp"

namespace cdens::detail {

struct MeanAndError {
  double mean = 0.0;
  double standard_error = 0.0;  ///< sd / √n
};

/// Mean and standard error of finite values (at least two). Values near the top of the range of
/// a double (a y of 1e150 has a log-likelihood near −1e300) are summed scaled by the largest
/// magnitude, so that their squares and sums do not overflow; either result may still be
/// infinite when it does not fit in a double, which the caller refuses.
MeanAndError mean_and_standard_error(const Vector& values);

}  // namespace cdens::detail

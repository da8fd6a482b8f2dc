#include "core/validate.hpp"

#include <unistd.h>

#include <cmath>
#include <sstream>

#include "cdens/core/types.hpp"

namespace cdens {

void require_finite(const MatrixView& data, std::string_view what) {
  for (Index j = 0; j < data.cols(); ++j) {
    for (Index i = 0; i < data.rows(); ++i) {
      if (!std::isfinite(data(i, j))) {
        std::ostringstream message;
        message << what << " contains a non-finite value (" << data(i, j) << ") at sample " << j
                << ", dimension " << i;
        throw DataError(message.str());
      }
    }
  }
}

void require_nonempty(const MatrixView& data, std::string_view what) {
  if (data.rows() == 0 || data.cols() == 0) {
    std::ostringstream message;
    message << what << " is empty (" << data.rows() << " dimensions, " << data.cols()
            << " samples)";
    throw DataError(message.str());
  }
}

void require_same_samples(const MatrixView& a, std::string_view what_a, const MatrixView& b,
                          std::string_view what_b) {
  if (a.cols() != b.cols()) {
    std::ostringstream message;
    message << what_a << " has " << a.cols() << " samples but " << what_b << " has " << b.cols();
    throw InvalidArgument(message.str());
  }
}

void require_training_pairs(const MatrixView& x, const MatrixView& y) {
  require_nonempty(x, "x");
  require_nonempty(y, "y");
  require_same_samples(x, "x", y, "y");
  require_finite(x, "x");
  require_finite(y, "y");
}

void require_training_shard(const MatrixView& x, const MatrixView& y,
                            const Communicator& communicator) {
  if (communicator.size() == 1 || x.cols() > 0 || y.cols() > 0) require_training_pairs(x, y);
}

void require_dimension(const MatrixView& data, Index dimension, std::string_view what) {
  if (data.rows() != dimension) {
    std::ostringstream message;
    message << what << " has dimension " << data.rows() << " but the model expects " << dimension;
    throw InvalidArgument(message.str());
  }
}

void require_positive(double value, std::string_view what) {
  if (!(std::isfinite(value) && value > 0.0)) {
    std::ostringstream message;
    message << what << " must be a finite positive number, got " << value;
    throw InvalidArgument(message.str());
  }
}

void require_positive_values(const std::vector<double>& values, std::string_view what) {
  if (values.empty()) {
    throw InvalidArgument(std::string(what) + " must not be empty");
  }
  for (double value : values) require_positive(value, what);
}

void require_open_unit_interval(const std::vector<double>& values, std::string_view what) {
  if (values.empty()) {
    throw InvalidArgument(std::string(what) + " must not be empty");
  }
  for (double value : values) {
    if (!(value > 0.0 && value < 1.0)) {
      std::ostringstream message;
      message << what << " must lie strictly between 0 and 1, got " << value;
      throw InvalidArgument(message.str());
    }
  }
}

double machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  // Without an answer from the system, a bound no real request reaches but that still keeps
  // sizes from overflowing.
  if (pages <= 0 || page_size <= 0) return 1e15;
  return static_cast<double>(pages) * static_cast<double>(page_size);
}

void require_memory_for(double values, std::string_view what) {
  const double needed = values * static_cast<double>(sizeof(double));
  const double available = machine_memory_bytes();
  if (!(needed <= available)) {
    std::ostringstream message;
    message.precision(3);
    message << what << " asks for " << values << " numbers (" << needed / (1 << 30)
            << " GiB) but this machine has " << available / (1 << 30) << " GiB of memory";
    throw InvalidArgument(message.str());
  }
}

}  // namespace cdens

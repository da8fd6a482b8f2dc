#pragma once
// Matrix types, the errors cdens throws and the intervals of a density region: the vocabulary.
//
// Samples are columns: a data set of n points in d dimensions is a d × n column-major matrix.
// A numpy array of shape (n, d) in C order is exactly this memory.

#include <Eigen/Core>
#include <stdexcept>
#include <string>
#include <vector>

namespace cdens {

// Exception types. Every public entry point validates its input and throws one of these;
// the CLI turns them into exit status 2 and the Python binding into ValueError.

/// Base of every error cdens throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An option, shape or parameter that cannot be used (for example σ ≤ 0 or fewer samples
/// than cross-validation folds).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Data values that cannot be modelled: NaN or infinity, a constant column, an empty set.
class DataError : public Error {
 public:
  using Error::Error;
};

/// A malformed text file; the message names the file, line and column.
class ParseError : public DataError {
 public:
  using DataError::DataError;
};

/// A file that cannot be opened, read or written.
class IoError : public Error {
 public:
  using Error::Error;
};

/// A model file whose content is not a model this version of cdens can read.
class ModelFormatError : public Error {
 public:
  using Error::Error;
};

// Highest-density regions of a one-dimensional density, the answer of both mixture shapes.

/// A closed interval [lower, upper].
struct Interval {
  double lower;
  double upper;
};

/// Highest-density region {y : p(y) ≥ density_threshold} of a given probability (coverage).
struct HighestDensityRegion {
  std::vector<Interval> intervals;  ///< disjoint, increasing
  double density_threshold;         ///< in the user's units
};

using Index = Eigen::Index;
using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
/// Read-only view of a d × n block of samples; binds to a Matrix or a mapped buffer without a copy.
using MatrixView = Eigen::Ref<const Matrix>;
/// Read-only view of a vector.
using VectorView = Eigen::Ref<const Vector>;

}  // namespace cdens

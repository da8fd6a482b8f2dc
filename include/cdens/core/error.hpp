#pragma once
// Exception types. Every public entry point validates its input and throws one of these;
// the CLI turns them into exit status 2 and the Python binding into ValueError.

#include <stdexcept>
#include <string>

namespace cdens {

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

}  // namespace cdens

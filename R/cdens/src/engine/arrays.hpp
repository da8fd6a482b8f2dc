#pragma once
// Arrays across the R boundary. An R matrix of n rows and d columns is column-major n × d, the
// transpose of the library's d × n sample matrix, so samples are copied once each way. Results are
// Rcpp objects, which keep their R values protected until they are stored or returned.

#include <Rcpp.h>

#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::r {

/// The rows of an R numeric matrix (n × d) or vector (n values: d = 1) as the library's d × n
/// sample matrix. InvalidArgument naming `name` for anything else (the R functions convert
/// data frames and factors before calling in).
Matrix samples_of(SEXP values, const std::string& name);

/// A d × n sample matrix as an R matrix of n rows and d columns.
Rcpp::NumericMatrix samples_to_r(const Matrix& samples);

/// A matrix as the R matrix of the same rows and columns.
Rcpp::NumericMatrix matrix_to_r(const Matrix& values);

/// A vector as an R numeric vector.
Rcpp::NumericVector vector_to_r(const Vector& values);

/// The numbers of an R numeric vector; InvalidArgument naming `name` otherwise.
std::vector<double> numbers_of(SEXP values, const std::string& name);

/// The strings of an R character vector (NULL: none); InvalidArgument naming `name` otherwise.
std::vector<std::string> strings_of(SEXP values, const std::string& name);

/// The one string of an R character vector of length 1; InvalidArgument naming `name` otherwise.
std::string string_of(SEXP value, const std::string& name);

/// The one number of an R numeric vector of length 1; InvalidArgument naming `name` otherwise.
double number_of(SEXP value, const std::string& name);

/// A whole number of an R numeric vector of length 1; InvalidArgument naming `name` otherwise.
Index integer_of(SEXP value, const std::string& name);

/// The truth value of an R logical of length 1 that is not NA; InvalidArgument naming `name`.
bool flag_of(SEXP value, const std::string& name);

/// A highest-density region as a k × 2 matrix of its disjoint increasing intervals (columns
/// lower and upper) with the attribute density_threshold.
Rcpp::NumericMatrix region_to_r(const HighestDensityRegion& region);

/// A list of strings as an R character vector.
Rcpp::CharacterVector strings_to_r(const std::vector<std::string>& strings);

}  // namespace cdens::r

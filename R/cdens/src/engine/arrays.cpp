#include "arrays.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace cdens::r {
namespace {

bool is_number_vector(SEXP values) {
  return (TYPEOF(values) == REALSXP || TYPEOF(values) == INTSXP) && !Rf_isFactor(values);
}

/// The value at `k` of a numeric vector, NA as NaN.
double number_at(SEXP values, R_xlen_t k) {
  if (TYPEOF(values) == REALSXP) return REAL(values)[k];
  const int value = INTEGER(values)[k];
  return value == NA_INTEGER ? std::nan("") : static_cast<double>(value);
}

}  // namespace

Matrix samples_of(SEXP values, const std::string& name) {
  if (!is_number_vector(values)) {
    throw InvalidArgument(name + " must be a numeric matrix or vector");
  }
  Index rows = Rf_xlength(values);
  Index columns = 1;
  if (Rf_isMatrix(values)) {
    rows = Rf_nrows(values);
    columns = Rf_ncols(values);
  }
  Matrix samples(columns, rows);
  for (Index j = 0; j < columns; ++j) {
    for (Index i = 0; i < rows; ++i) samples(j, i) = number_at(values, j * rows + i);
  }
  return samples;
}

Rcpp::NumericMatrix samples_to_r(const Matrix& samples) { return matrix_to_r(samples.transpose()); }

Rcpp::NumericMatrix matrix_to_r(const Matrix& values) {
  Rcpp::NumericMatrix result(static_cast<int>(values.rows()), static_cast<int>(values.cols()));
  std::copy(values.data(), values.data() + values.size(), result.begin());
  return result;
}

Rcpp::NumericVector vector_to_r(const Vector& values) {
  return Rcpp::NumericVector(values.data(), values.data() + values.size());
}

std::vector<double> numbers_of(SEXP values, const std::string& name) {
  if (!is_number_vector(values)) throw InvalidArgument(name + " must be numbers");
  std::vector<double> numbers;
  for (R_xlen_t k = 0; k < Rf_xlength(values); ++k) numbers.push_back(number_at(values, k));
  return numbers;
}

std::vector<std::string> strings_of(SEXP values, const std::string& name) {
  if (Rf_isNull(values)) return {};
  if (TYPEOF(values) != STRSXP) throw InvalidArgument(name + " must be a character vector");
  std::vector<std::string> strings;
  for (R_xlen_t k = 0; k < Rf_xlength(values); ++k) {
    if (STRING_ELT(values, k) == NA_STRING) throw InvalidArgument(name + " holds an NA");
    strings.emplace_back(Rf_translateCharUTF8(STRING_ELT(values, k)));
  }
  return strings;
}

std::string string_of(SEXP value, const std::string& name) {
  const std::vector<std::string> strings = strings_of(value, name);
  if (TYPEOF(value) != STRSXP || strings.size() != 1) {
    throw InvalidArgument(name + " must be one string");
  }
  return strings[0];
}

double number_of(SEXP value, const std::string& name) {
  if (!is_number_vector(value) || Rf_xlength(value) != 1) {
    throw InvalidArgument(name + " must be one number");
  }
  return number_at(value, 0);
}

Index integer_of(SEXP value, const std::string& name) {
  const double number = number_of(value, name);
  if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > 0x1p53) {
    throw InvalidArgument(name + " must be a whole number");
  }
  return static_cast<Index>(number);
}

bool flag_of(SEXP value, const std::string& name) {
  if (TYPEOF(value) != LGLSXP || Rf_xlength(value) != 1 || LOGICAL(value)[0] == NA_LOGICAL) {
    throw InvalidArgument(name + " must be TRUE or FALSE");
  }
  return LOGICAL(value)[0] != 0;
}

Rcpp::NumericMatrix region_to_r(const HighestDensityRegion& region) {
  const auto count = static_cast<int>(region.intervals.size());
  Rcpp::NumericMatrix bounds(count, 2);
  for (int k = 0; k < count; ++k) {
    bounds(k, 0) = region.intervals[static_cast<std::size_t>(k)].lower;
    bounds(k, 1) = region.intervals[static_cast<std::size_t>(k)].upper;
  }
  Rcpp::colnames(bounds) = Rcpp::CharacterVector::create("lower", "upper");
  bounds.attr("density_threshold") = region.density_threshold;
  return bounds;
}

Rcpp::CharacterVector strings_to_r(const std::vector<std::string>& strings) {
  Rcpp::CharacterVector result(strings.size());
  for (std::size_t k = 0; k < strings.size(); ++k) {
    result[static_cast<R_xlen_t>(k)] = Rcpp::String(strings[k], CE_UTF8);
  }
  return result;
}

}  // namespace cdens::r

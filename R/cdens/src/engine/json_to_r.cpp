#include "json_to_r.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "arrays.hpp"

namespace cdens::r {
namespace {

bool is_number_or_null(const nlohmann::json& value) { return value.is_number() || value.is_null(); }

bool all_of(const nlohmann::json& array, bool (*test)(const nlohmann::json&)) {
  for (const auto& item : array) {
    if (!test(item)) return false;
  }
  return true;
}

bool is_string(const nlohmann::json& value) { return value.is_string(); }
bool is_boolean(const nlohmann::json& value) { return value.is_boolean(); }
bool is_number_array(const nlohmann::json& value) {
  return value.is_array() && all_of(value, &is_number_or_null);
}

double number_in(const nlohmann::json& value) {
  return value.is_null() ? NA_REAL : value.get<double>();
}

/// An array of number arrays of one length (at least one of each) as a matrix, or nullptr.
Rcpp::RObject matrix_of(const nlohmann::json& array) {
  if (array.empty() || !all_of(array, &is_number_array)) return R_NilValue;
  const std::size_t columns = array.front().size();
  if (columns == 0) return R_NilValue;
  for (const auto& row : array) {
    if (row.size() != columns) return R_NilValue;
  }
  Rcpp::NumericMatrix result(static_cast<int>(array.size()), static_cast<int>(columns));
  for (std::size_t i = 0; i < array.size(); ++i) {
    for (std::size_t j = 0; j < columns; ++j) {
      result(static_cast<int>(i), static_cast<int>(j)) = number_in(array[i][j]);
    }
  }
  return result;
}

Rcpp::RObject array_to_r(const nlohmann::json& array) {
  if (array.empty()) return Rcpp::List();
  if (all_of(array, &is_number_or_null)) {
    Rcpp::NumericVector numbers(array.size());
    for (std::size_t k = 0; k < array.size(); ++k) numbers[k] = number_in(array[k]);
    return numbers;
  }
  if (all_of(array, &is_string)) {
    std::vector<std::string> strings;
    for (const auto& item : array) strings.push_back(item.get<std::string>());
    return strings_to_r(strings);
  }
  if (all_of(array, &is_boolean)) {
    Rcpp::LogicalVector flags(array.size());
    for (std::size_t k = 0; k < array.size(); ++k) flags[k] = array[k].get<bool>();
    return flags;
  }
  Rcpp::RObject matrix = matrix_of(array);
  if (!matrix.isNULL()) return matrix;
  Rcpp::List items(array.size());
  for (std::size_t k = 0; k < array.size(); ++k) items[k] = json_to_r(array[k]);
  return items;
}

/// Whether `value` is a matrix as the library writes one: {"rows", "cols", "data"}, the data
/// column-major.
bool is_library_matrix(const nlohmann::json& value) {
  return value.is_object() && value.size() == 3 && value.contains("rows") &&
         value.contains("cols") && value.contains("data") && value["rows"].is_number_integer() &&
         value["cols"].is_number_integer() && value["rows"].get<std::int64_t>() >= 0 &&
         value["cols"].get<std::int64_t>() >= 0 && is_number_array(value["data"]) &&
         value["data"].size() ==
             value["rows"].get<std::size_t>() * value["cols"].get<std::size_t>();
}

}  // namespace

Rcpp::RObject json_to_r(const nlohmann::json& value) {
  if (is_library_matrix(value)) {
    Rcpp::NumericMatrix matrix(value["rows"].get<int>(), value["cols"].get<int>());
    const auto& data = value["data"];
    for (std::size_t k = 0; k < data.size(); ++k) matrix[k] = number_in(data[k]);
    return matrix;
  }
  if (value.is_null()) return Rcpp::LogicalVector::create(NA_LOGICAL);
  if (value.is_boolean()) return Rcpp::LogicalVector::create(value.get<bool>());
  if (value.is_number()) return Rcpp::NumericVector::create(value.get<double>());
  if (value.is_string()) return strings_to_r({value.get<std::string>()});
  if (value.is_array()) return array_to_r(value);
  Rcpp::List fields(value.size());
  std::vector<std::string> names;
  std::size_t k = 0;
  for (const auto& [name, field] : value.items()) {
    fields[k++] = json_to_r(field);
    names.push_back(name);
  }
  fields.attr("names") = strings_to_r(names);
  return fields;
}

}  // namespace cdens::r

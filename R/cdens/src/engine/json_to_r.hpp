#pragma once
// JSON documents of the library (fit reports, evaluations, comparisons) as R values, so that the
// R package reads every field the library writes without a converter per structure.

#include <Rcpp.h>

#include <nlohmann/json_fwd.hpp>

namespace cdens::r {

/// A matrix as the library writes one ({"rows", "cols", "data"}, column-major) as a matrix; any
/// other object as a named list; an array of numbers (null as NA), of strings or of truth values as
/// a vector; an array of equally long arrays of numbers as a matrix, one row per inner array;
/// any other array as a list; null as NA.
Rcpp::RObject json_to_r(const nlohmann::json& value);

}  // namespace cdens::r

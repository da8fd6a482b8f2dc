#pragma once
// Options of the registry's methods from R values, and option values back as R values: the
// registry's description of every method for the R package (its functions, their arguments,
// defaults and Rd pages are generated from it) and the options of a fit.

#include <Rcpp.h>

#include "cdens/methods/registry.hpp"

namespace cdens::r {

/// An option's value as R holds it: a truth value, a number (a whole number for integer, seed and
/// thread options), numbers (a grid, a pair), a string (a choice; a comma-joined name list
/// becomes a character vector) or 0-based column positions as integers.
Rcpp::RObject option_value_to_r(const OptionValue& value, OptionType type);

/// The value of `value` (an R value) for `option`, checked by check_value; errors name the R
/// argument.
OptionValue option_value_of(const OptionInfo& option, SEXP value);

/// The options of `method` from a named list of R values by option name (not R name).
OptionValues option_values_of(const MethodEntry& method, SEXP options);

/// Every method as an R list: name, family, summary, r_function, python_class, multi_output,
/// sample_weights, takes_unlabeled_inputs, distributed, test_options, options (one list per
/// option: name, r_name, python_name, cli_flag, type, doc, offered, choices, takes_numbers,
/// none_is_default, minimum, maximum, exclusive_minimum, range_reason, ordered, per_column,
/// default, default_text), extras and queries (name, shape, doc).
Rcpp::List methods_to_r();

}  // namespace cdens::r

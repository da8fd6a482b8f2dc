#include "options.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "io/text.hpp"

namespace cdens::r {
namespace {

/// "a,b,c" as {"a", "b", "c"} (empty text: none).
std::vector<std::string> names_in(const std::string& joined) {
  std::vector<std::string> names;
  if (joined.empty()) return names;
  for (std::size_t start = 0;;) {
    const std::size_t comma = joined.find(',', start);
    names.push_back(joined.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

/// A seed from 0 to 2^53 (the whole numbers an R number holds exactly).
std::uint64_t seed_of(SEXP value, const std::string& name) {
  const Index seed = integer_of(value, name);
  if (seed < 0) throw InvalidArgument(name + " must be a whole number from 0 to 2^53");
  return static_cast<std::uint64_t>(seed);
}

Rcpp::List array_declaration_to_r(const ArrayDeclaration& array) {
  return Rcpp::List::create(Rcpp::Named("name") = array.name,
                            Rcpp::Named("shape") = strings_to_r(array.shape),
                            Rcpp::Named("doc") = array.doc);
}

Rcpp::List option_to_r(const OptionInfo& option) {
  return Rcpp::List::create(
      Rcpp::Named("name") = option.name, Rcpp::Named("r_name") = option.r_name,
      Rcpp::Named("python_name") = option.python_name, Rcpp::Named("cli_flag") = option.cli_flag,
      Rcpp::Named("type") = to_string(option.type), Rcpp::Named("doc") = option.doc,
      Rcpp::Named("offered") = option.offered,
      Rcpp::Named("choices") = strings_to_r(option.choices),
      Rcpp::Named("takes_numbers") = option.takes_numbers,
      Rcpp::Named("none_is_default") = option.none_is_default,
      Rcpp::Named("minimum") = option.minimum, Rcpp::Named("maximum") = option.maximum,
      Rcpp::Named("exclusive_minimum") = option.exclusive_minimum,
      Rcpp::Named("range_reason") = option.range_reason,
      Rcpp::Named("ordered") = option.type == OptionType::real_pair && option.ordered,
      Rcpp::Named("per_column") = option.per_column,
      Rcpp::Named("default") = option_value_to_r(option.default_value, option.type),
      Rcpp::Named("default_text") = describe_default(option));
}

Rcpp::List method_to_r(const MethodEntry& method) {
  Rcpp::List test_options;
  std::vector<std::string> test_names;
  for (const auto& [name, value] : method.test_options) {
    test_options.push_back(option_value_to_r(value, find_option(method, name).type));
    test_names.push_back(name);
  }
  test_options.attr("names") = strings_to_r(test_names);
  Rcpp::List options;
  for (const OptionInfo& option : method.options) options.push_back(option_to_r(option));
  Rcpp::List extras;
  for (const ArrayDeclaration& extra : method.extras) {
    extras.push_back(array_declaration_to_r(extra));
  }
  Rcpp::List queries;
  for (const MethodQuery& query : method.queries) {
    queries.push_back(array_declaration_to_r(query.result));
  }
  return Rcpp::List::create(
      Rcpp::Named("name") = method.name, Rcpp::Named("family") = to_string(method.family),
      Rcpp::Named("summary") = method.summary, Rcpp::Named("r_function") = r_function_of(method),
      Rcpp::Named("python_class") = method.python_class,
      Rcpp::Named("multi_output") = method.multi_output,
      Rcpp::Named("sample_weights") = method.sample_weights,
      Rcpp::Named("takes_unlabeled_inputs") = method.takes_unlabeled_inputs,
      Rcpp::Named("distributed") = method.distributed, Rcpp::Named("test_options") = test_options,
      Rcpp::Named("options") = options, Rcpp::Named("extras") = extras,
      Rcpp::Named("queries") = queries);
}

}  // namespace

Rcpp::RObject option_value_to_r(const OptionValue& value, OptionType type) {
  if (const auto* flag = std::get_if<bool>(&value)) return Rcpp::wrap(*flag);
  if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    return Rcpp::wrap(static_cast<double>(*integer));
  }
  if (const auto* seed = std::get_if<std::uint64_t>(&value)) {
    return Rcpp::wrap(static_cast<double>(*seed));
  }
  if (const auto* number = std::get_if<double>(&value)) return Rcpp::wrap(*number);
  if (const auto* numbers = std::get_if<std::vector<double>>(&value)) return Rcpp::wrap(*numbers);
  if (const auto* text = std::get_if<std::string>(&value)) {
    return type == OptionType::name_list ? strings_to_r(names_in(*text)) : strings_to_r({*text});
  }
  const auto& columns = std::get<std::vector<std::int64_t>>(value);
  return Rcpp::IntegerVector(columns.begin(), columns.end());
}

OptionValue option_value_of(const OptionInfo& option, SEXP value) {
  const std::string& name = option.r_name.empty() ? option.name : option.r_name;
  OptionValue converted;
  switch (option.type) {
    case OptionType::boolean:
      converted = flag_of(value, name);
      break;
    case OptionType::integer:
    case OptionType::threads:
      converted = static_cast<std::int64_t>(integer_of(value, name));
      break;
    case OptionType::seed:
      converted = seed_of(value, name);
      break;
    case OptionType::real:
      converted = number_of(value, name);
      break;
    case OptionType::real_list:
    case OptionType::real_pair:
      converted = numbers_of(value, name);
      break;
    case OptionType::choice:
      // A choice that takes numbers too keeps a number as its exact text (17 digits).
      if (option.takes_numbers && TYPEOF(value) != STRSXP) {
        converted = exact_text(number_of(value, name));
      } else {
        converted = string_of(value, name);
      }
      break;
    case OptionType::name_list: {
      std::string joined;
      for (const std::string& item : strings_of(value, name)) {
        joined += (joined.empty() ? "" : ",") + item;
      }
      converted = joined;
      break;
    }
    case OptionType::columns: {
      std::vector<std::int64_t> columns;
      for (const double position : numbers_of(value, name)) {
        if (!std::isfinite(position) || position != std::floor(position)) {
          throw InvalidArgument(name + " must be columns, by name or position");
        }
        columns.push_back(static_cast<std::int64_t>(position));
      }
      converted = columns;
      break;
    }
  }
  check_value(option, converted, name);
  return converted;
}

OptionValues option_values_of(const MethodEntry& method, SEXP options) {
  const Rcpp::List given(options);
  const std::vector<std::string> names =
      given.size() ? strings_of(given.names(), "options") : std::vector<std::string>();
  OptionValues values;
  for (R_xlen_t k = 0; k < given.size(); ++k) {
    const OptionInfo& option = find_option(method, names[static_cast<std::size_t>(k)]);
    values[option.name] = option_value_of(option, given[k]);
  }
  return values;
}

Rcpp::List methods_to_r() {
  Rcpp::List entries;
  for (const MethodEntry& method : methods()) entries.push_back(method_to_r(method));
  return entries;
}

}  // namespace cdens::r

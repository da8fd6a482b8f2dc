#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "io/text.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

/// Whether `text` is a finite number as the command reads one (parse_number).
bool is_finite_number(const std::string& text) {
  try {
    parse_number(text, "a number");
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

/// "must be at least 2", "must lie in [0, 1)", … of the option's declared range.
std::string describe_range(const OptionInfo& option) {
  const std::string low = (option.exclusive_minimum ? "(" : "[") + format_number(option.minimum);
  if (std::isinf(option.maximum)) {
    return (option.exclusive_minimum ? "must be greater than " : "must be at least ") +
           format_number(option.minimum);
  }
  if (std::isinf(option.minimum)) return "must be at most " + format_number(option.maximum);
  return "must lie in " + low + ", " + format_number(option.maximum) + "]";
}

}  // namespace

const std::map<std::string, std::string>& python_conventions() {
  static const std::map<std::string, std::string> names = {
      {"folds", "cv"}, {"seed", "random_state"}, {"threads", "n_jobs"}};
  return names;
}

std::string python_name_of(const std::string& name) {
  const auto convention = python_conventions().find(name);
  return convention == python_conventions().end() ? name : convention->second;
}

const std::map<std::string, std::string>& r_conventions() {
  static const std::map<std::string, std::string> names = {{"threads", "n_jobs"}};
  return names;
}

std::string r_name_of(const std::string& name) {
  const auto convention = r_conventions().find(name);
  return convention == r_conventions().end() ? name : convention->second;
}

std::string cli_flag_of(const OptionInfo& option) {
  std::string kebab = option.name;
  std::replace(kebab.begin(), kebab.end(), '_', '-');
  const auto* flag = std::get_if<bool>(&option.default_value);
  return (option.type == OptionType::boolean && flag && *flag ? "--no-" : "--") + kebab;
}

bool stands_for_default(const OptionInfo& option) {
  if (!option.none_is_default) return false;
  if (const auto* integer = std::get_if<std::int64_t>(&option.default_value)) return *integer == 0;
  if (const auto* number = std::get_if<double>(&option.default_value)) return *number == 0.0;
  return false;
}

std::string to_string(OptionType type) {
  switch (type) {
    case OptionType::boolean:
      return "boolean";
    case OptionType::integer:
      return "integer";
    case OptionType::real:
      return "real";
    case OptionType::real_list:
      return "real_list";
    case OptionType::real_pair:
      return "real_pair";
    case OptionType::choice:
      return "choice";
    case OptionType::name_list:
      return "name_list";
    case OptionType::seed:
      return "seed";
    case OptionType::threads:
      return "threads";
    case OptionType::columns:
      return "columns";
  }
  return "unknown";
}

bool fits_type(const OptionValue& value, OptionType type) {
  switch (type) {
    case OptionType::boolean:
      return std::holds_alternative<bool>(value);
    case OptionType::integer:
    case OptionType::threads:
      return std::holds_alternative<std::int64_t>(value);
    case OptionType::real:
      return std::holds_alternative<double>(value) || std::holds_alternative<std::int64_t>(value);
    case OptionType::real_list:
      return std::holds_alternative<std::vector<double>>(value) &&
             !std::get<std::vector<double>>(value).empty();
    case OptionType::real_pair:
      return std::holds_alternative<std::vector<double>>(value) &&
             std::get<std::vector<double>>(value).size() == 2;
    case OptionType::choice:
      return std::holds_alternative<std::string>(value);
    case OptionType::name_list:
      return std::holds_alternative<std::string>(value) && !std::get<std::string>(value).empty();
    case OptionType::seed:
      return std::holds_alternative<std::uint64_t>(value);
    case OptionType::columns:
      return std::holds_alternative<std::vector<std::int64_t>>(value);
  }
  return false;
}

void check_form(const OptionInfo& option, const OptionValue& value, const std::string& spelling) {
  static const std::map<OptionType, std::string> expected = {
      {OptionType::boolean, "true or false"},
      {OptionType::integer, "an integer"},
      {OptionType::threads, "an integer"},
      {OptionType::real, "a finite number"},
      {OptionType::real_list, "a non-empty list of finite numbers"},
      {OptionType::real_pair, "a pair of finite numbers"},
      {OptionType::choice, "a string"},
      {OptionType::name_list, "a non-empty list of names"},
      {OptionType::seed, "a non-negative integer"},
      {OptionType::columns, "a list of column positions"}};
  if (!fits_type(value, option.type)) {
    throw InvalidArgument(spelling + " must be " + expected.at(option.type));
  }
  if (const auto* number = std::get_if<double>(&value); number && !std::isfinite(*number)) {
    throw InvalidArgument(spelling + " must be a finite number");
  }
  if (const auto* list = std::get_if<std::vector<double>>(&value); list && !all_finite(*list)) {
    throw InvalidArgument(spelling + " must hold finite numbers only");
  }
  // Every integer option is stored in an int or an Index; one bound for both keeps the
  // conversion defined.
  if (const auto* integer = std::get_if<std::int64_t>(&value);
      integer && option.type != OptionType::real && (*integer > INT_MAX || *integer < INT_MIN)) {
    throw InvalidArgument(spelling + " is out of range");
  }
  if (const auto* columns = std::get_if<std::vector<std::int64_t>>(&value)) {
    if (std::any_of(columns->begin(), columns->end(),
                    [](std::int64_t column) { return column < 0 || column > INT_MAX; })) {
      throw InvalidArgument(spelling +
                            " must hold column positions from 0 on (inputs, then "
                            "outputs)");
    }
  }
  if (option.type == OptionType::choice) {
    const auto& text = std::get<std::string>(value);
    if (std::find(option.choices.begin(), option.choices.end(), text) == option.choices.end() &&
        !(option.takes_numbers && is_finite_number(text))) {
      std::string choices;
      for (const auto& choice : option.choices) choices += (choices.empty() ? "" : ", ") + choice;
      throw InvalidArgument(spelling + " must be one of " + choices +
                            (option.takes_numbers ? " or a finite number" : "") + ", not '" + text +
                            "'");
    }
  }
  if (stands_for_default(option)) {
    // 0 is how the engine stores "the method's choice"; a user who types it means something
    // else, and taking it silently as the default would hide that.
    const bool positive = std::visit(
        [](const auto& number) {
          using Number = std::decay_t<decltype(number)>;
          if constexpr (std::is_same_v<Number, std::int64_t> || std::is_same_v<Number, double>) {
            return number > 0;
          } else {
            return true;
          }
        },
        value);
    if (!positive) {
      throw InvalidArgument(spelling +
                            " must be positive; leave it out (None in Python) for the default (" +
                            option.doc + ")");
    }
  }
  if (option.type == OptionType::name_list) {
    split_list(std::get<std::string>(value), ',', spelling);  // no empty name
  }
}

void check_value(const OptionInfo& option, const OptionValue& value, const std::string& spelling) {
  check_form(option, value, spelling);
  // The declared range, for every number the value holds (an integer counts as one).
  std::vector<double> numbers;
  if (const auto* number = std::get_if<double>(&value)) numbers.push_back(*number);
  if (const auto* integer = std::get_if<std::int64_t>(&value);
      integer && option.type != OptionType::threads) {
    numbers.push_back(static_cast<double>(*integer));
  }
  if (const auto* list = std::get_if<std::vector<double>>(&value)) numbers = *list;
  for (const double number : numbers) {
    if (number > option.minimum || (number == option.minimum && !option.exclusive_minimum)) {
      if (number <= option.maximum) continue;
    }
    throw InvalidArgument(spelling + " " + describe_range(option) + ", got " +
                          format_number(number) + option.range_reason);
  }
  if (option.type == OptionType::real_pair && option.ordered) {
    const auto& pair = std::get<std::vector<double>>(value);
    if (!(pair[0] < pair[1])) {
      throw InvalidArgument(spelling + ": the lower bound " + format_number(pair[0]) +
                            " must be smaller than the upper bound " + format_number(pair[1]));
    }
  }
  if (option.type == OptionType::threads) {
    const auto threads = std::get<std::int64_t>(value);
    if (threads < 0) throw InvalidArgument(spelling + " must not be negative");
    if (threads > thread_limit()) {
      throw InvalidArgument(spelling + " must be at most " + std::to_string(thread_limit()) +
                            " (8 per processor of this machine), not " + std::to_string(threads));
    }
  }
}

OptionValue parse_option_text(const OptionInfo& option, const std::string& text,
                              const std::string& spelling) {
  OptionValue value;
  switch (option.type) {
    case OptionType::integer: {
      const double number = parse_number(text, spelling);
      if (number != std::floor(number) || std::abs(number) > 9e15) {
        throw InvalidArgument(spelling + ": '" + text + "' is not an integer");
      }
      value = static_cast<std::int64_t>(number);
      break;
    }
    case OptionType::real:
      value = parse_number(text, spelling);
      break;
    case OptionType::real_list:
    case OptionType::real_pair:
      value = parse_number_list(text, spelling);
      break;
    case OptionType::choice:
    case OptionType::name_list:
      value = text;
      break;
    default:
      throw InvalidArgument(spelling + " takes no value");
  }
  check_value(option, value, spelling);
  return value;
}

std::string describe_default(const OptionInfo& option) {
  // An infinite default that Python spells None is no bound at all (y_lower, y_upper).
  const auto* number = std::get_if<double>(&option.default_value);
  if (option.none_is_default && number != nullptr && std::isinf(*number)) return "none";
  return describe_value(option.default_value);
}

std::string describe_value(const OptionValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  if (const auto* seed = std::get_if<std::uint64_t>(&value)) return std::to_string(*seed);
  if (const auto* number = std::get_if<double>(&value)) return format_number(*number);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* columns = std::get_if<std::vector<std::int64_t>>(&value)) {
    std::string joined;
    for (const std::int64_t column : *columns) {
      joined += (joined.empty() ? "" : ",") + std::to_string(column);
    }
    return joined.empty() ? "none" : joined;
  }
  const auto& list = std::get<std::vector<double>>(value);
  if (list.empty()) return "none";
  if (list.size() <= 3) {
    std::string joined;
    for (double v : list) joined += (joined.empty() ? "" : ",") + format_number(v);
    return joined;
  }
  return format_number(list.front()) + " … " + format_number(list.back()) + " (" +
         std::to_string(list.size()) + " values)";
}

}  // namespace cdens

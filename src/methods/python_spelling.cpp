// How the messages of a fit from the Python package spell their advice (registry.hpp,
// python_spelling): the registry knows each method's class and each option's Python name and type.

#include "methods/python_spelling.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cdens/methods/registry.hpp"

namespace cdens {
namespace {

/// The first option called `name` among the methods' (an option means one thing in every method
/// that has it), or nullptr.
const OptionInfo* option_called(std::string_view name) {
  for (const MethodEntry& method : methods()) {
    for (const OptionInfo& option : method.options) {
      if (option.name == name) return &option;
    }
  }
  return nullptr;
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    (void)std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

/// A value as the command line writes it ("linear", "year,month", "0.1,1") as Python writes
/// it for an option of type `type`: a quoted string, a list, a tuple, a number.
std::string python_value(const OptionInfo* option, std::string_view value) {
  const std::string text(value);
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const auto item = [](const std::string& part) {
    return is_number(part) ? part : "'" + part + "'";
  };
  const auto joined = [&](const char* open, const char* close) {
    std::string list = open;
    for (std::size_t k = 0; k < items.size(); ++k) list += (k ? ", " : "") + item(items[k]);
    return list + close;
  };
  const OptionType type = option ? option->type : OptionType::choice;
  switch (type) {
    case OptionType::columns:
    case OptionType::name_list:
    case OptionType::real_list:
      return joined("[", "]");
    case OptionType::real_pair:
      return joined("(", ")");
    case OptionType::boolean:
      return text == "true" ? "True" : text == "false" ? "False" : text;
    default:
      return item(text);
  }
}

class PythonSpelling final : public Spelling {
 public:
  std::string method(
      std::string_view name,
      const std::vector<std::pair<std::string, std::string>>& options) const override {
    std::string text = method_name(name) + "(";
    for (std::size_t k = 0; k < options.size(); ++k) {
      text += (k ? ", " : "") + option(options[k].first, options[k].second);
    }
    return text + ")";
  }
  std::string method_name(std::string_view name) const override {
    const MethodEntry* entry = method_named(std::string(name));
    return entry ? entry->python_class : std::string(name);
  }
  std::string option(std::string_view name, std::string_view value) const override {
    return option_name(name) + "=" + python_value(option_called(name), value);
  }
  std::string option_name(std::string_view name) const override {
    return python_name_of(std::string(name));
  }
};

}  // namespace

const Spelling& python_spelling() {
  static const PythonSpelling spelling;
  return spelling;
}

}  // namespace cdens

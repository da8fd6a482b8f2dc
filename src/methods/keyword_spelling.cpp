// Advice in keyword-call syntax (keyword_spelling.hpp): the registry knows each option's type.

#include "methods/keyword_spelling.hpp"

#include <exception>
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

/// The comma-separated items of `text`.
std::vector<std::string> items_of(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace

std::string KeywordSpelling::method(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& options) const {
  std::string text = method_name(name) + "(";
  for (std::size_t k = 0; k < options.size(); ++k) {
    text += (k ? ", " : "") + option(options[k].first, options[k].second);
  }
  return text + ")";
}

std::string KeywordSpelling::method_name(std::string_view name) const {
  const MethodEntry* entry = method_named(std::string(name));
  return entry ? function_of_(*entry) : std::string(name);
}

std::string KeywordSpelling::option(std::string_view name, std::string_view value) const {
  return option_name(name) + syntax_.assign + value_text(name, value);
}

std::string KeywordSpelling::option_name(std::string_view name) const {
  return keyword_of_(std::string(name));
}

std::string KeywordSpelling::value_text(std::string_view name, std::string_view value) const {
  const std::string text(value);
  const auto item = [&](const std::string& part) {
    return is_number(part) ? part : syntax_.quote + part + syntax_.quote;
  };
  const auto joined = [&](const std::string& open, const std::string& close) {
    const std::vector<std::string> items = items_of(text);
    if (items.size() == 1 && syntax_.scalar_is_list) return item(items[0]);
    std::string list = open;
    for (std::size_t k = 0; k < items.size(); ++k) list += (k ? ", " : "") + item(items[k]);
    return list + close;
  };
  const OptionInfo* option = option_called(name);
  switch (option ? option->type : OptionType::choice) {
    case OptionType::columns:
    case OptionType::name_list:
    case OptionType::real_list:
      return joined(syntax_.list_open, syntax_.list_close);
    case OptionType::real_pair:
      return joined(syntax_.pair_open, syntax_.pair_close);
    case OptionType::boolean:
      return text == "true" ? syntax_.true_word : text == "false" ? syntax_.false_word : text;
    default:
      return item(text);
  }
}

}  // namespace cdens

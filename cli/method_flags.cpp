#include "method_flags.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <utility>

#include "cdens/core/types.hpp"
#include "io/text.hpp"

namespace cdens::cli {
namespace {

/// Whether the registry's seed or threads row: those come from the command's own flags.
bool is_command_wide(const OptionInfo& option) {
  return option.type == OptionType::seed || option.type == OptionType::threads;
}

/// Items in first-appearance order, each with the names it was seen with.
using NamedGroups = std::vector<std::pair<std::string, std::vector<std::string>>>;

void add_to_group(NamedGroups& groups, const std::string& item, const std::string& name) {
  auto group = std::find_if(groups.begin(), groups.end(),
                            [&](const auto& entry) { return entry.first == item; });
  if (group == groups.end()) {
    groups.push_back({item, {name}});
  } else {
    group->second.push_back(name);
  }
}

/// "default D", or "default: a, b D1; c D2" when the methods' defaults differ.
std::string defaults_text(const NamedGroups& defaults) {
  if (defaults.size() == 1) return "default " + defaults.front().first;
  std::string text;
  for (const auto& [value, names] : defaults) {
    text += (text.empty() ? "" : "; ") + join(names, ", ") + " " + value;
  }
  return "default: " + text;
}

/// The help of a flag: each meaning (with the methods that mean it, when there are several),
/// followed by the methods' defaults.
std::string flag_help(const std::vector<std::pair<const MethodEntry*, const OptionInfo*>>& uses) {
  std::vector<std::pair<std::string, NamedGroups>> meanings;
  for (const auto& [method, option] : uses) {
    // A structured binding cannot be captured in C++17 (clang refuses, GCC allows).
    const std::string& doc = option->doc;
    auto meaning = std::find_if(meanings.begin(), meanings.end(),
                                [&](const auto& entry) { return entry.first == doc; });
    if (meaning == meanings.end()) {
      meanings.push_back({option->doc, {}});
      meaning = meanings.end() - 1;
    }
    add_to_group(meaning->second, describe_default(*option), method->name);
  }
  std::string help;
  for (const auto& [doc, defaults] : meanings) {
    help += help.empty() ? "" : "; ";
    // Where methods mean different things by one flag, each meaning says whose it is.
    if (meanings.size() > 1) {
      std::vector<std::string> names;
      for (const auto& group : defaults)
        names.insert(names.end(), group.second.begin(), group.second.end());
      help += join(names, ", ") + ": ";
    }
    help += doc;
    if (uses.front().second->type == OptionType::boolean) {
      help += " (" + defaults_text(defaults) + "; the switch sets the other value)";
    } else {
      help += " (" + defaults_text(defaults) + ")";
    }
  }
  return help;
}

}  // namespace

MethodFlags::MethodFlags(CLI::App& command, const std::vector<const MethodEntry*>& methods) {
  // Every spelling with the methods and options that use it, in order of first use.
  std::vector<std::string> spellings;
  std::map<std::string, std::vector<std::pair<const MethodEntry*, const OptionInfo*>>> uses;
  for (const MethodEntry* method : methods) {
    for (const OptionInfo& option : method->options) {
      if (option.cli_flag.empty() || is_command_wide(option)) continue;
      if (uses.count(option.cli_flag) == 0) spellings.push_back(option.cli_flag);
      uses[option.cli_flag].push_back({method, &option});
    }
  }
  for (const std::string& spelling : spellings) {
    auto flag = std::make_unique<Flag>();
    flag->spelling = spelling;
    const auto& described = uses.at(spelling);
    if (described.front().second->type == OptionType::boolean) {
      flag->option = command.add_flag(spelling, flag->switched, flag_help(described));
    } else {
      flag->option = command.add_option(spelling, flag->text, flag_help(described));
    }
    flags_.push_back(std::move(flag));
  }
}

const MethodFlags::Flag* MethodFlags::given(const OptionInfo& option) const {
  for (const auto& flag : flags_) {
    if (flag->option->count() > 0 && flag->spelling == option.cli_flag) return flag.get();
  }
  return nullptr;
}

OptionValues MethodFlags::values_for(const MethodEntry& method, std::uint64_t seed,
                                     int threads) const {
  std::vector<std::string> accepted;
  for (const OptionInfo& option : method.options) {
    if (!option.cli_flag.empty() && !is_command_wide(option)) accepted.push_back(option.cli_flag);
  }
  for (const auto& flag : flags_) {
    if (flag->option->count() > 0 &&
        std::find(accepted.begin(), accepted.end(), flag->spelling) == accepted.end()) {
      throw InvalidArgument("option " + flag->spelling + " does not apply to --method " +
                            method.name + " (its options: " + join(accepted, ", ") + ")");
    }
  }
  OptionValues values;
  for (const OptionInfo& option : method.options) {
    if (option.type == OptionType::seed) {
      values[option.name] = seed;
    } else if (option.type == OptionType::threads) {
      values[option.name] = static_cast<std::int64_t>(threads);
      check_value(option, values[option.name], "--threads");
    } else if (option.type == OptionType::columns) {
      continue;
    } else if (const Flag* flag = given(option)) {
      // A switch sets the option to the opposite of its default.
      values[option.name] = option.type == OptionType::boolean
                                ? OptionValue(!std::get<bool>(option.default_value))
                                : parse_option_text(option, flag->text, flag->spelling);
    }
  }
  return values;
}

OptionValues MethodFlags::column_values_for(
    const MethodEntry& method,
    const std::function<std::int64_t(const std::string& column)>& position_of) const {
  OptionValues values;
  for (const OptionInfo& option : method.options) {
    if (option.type != OptionType::columns) continue;
    if (const Flag* flag = given(option)) {
      std::vector<std::int64_t> positions;
      for (const std::string& column : split_list(flag->text, ',', flag->spelling)) {
        positions.push_back(position_of(column));
      }
      values[option.name] = positions;
    }
  }
  return values;
}

std::string method_flag_help(const std::vector<const MethodEntry*>& methods,
                             const std::string& default_method) {
  std::vector<std::string> names;
  for (const MethodEntry* method : methods) names.push_back(method->name);
  return "Estimator: " + join(names, ", ") + " (default " + default_method + ")";
}

}  // namespace cdens::cli

#include "cdens/core/spelling.hpp"

#include <algorithm>
#include <atomic>

namespace cdens {
namespace {

std::atomic<const Spelling*>& current_spelling() {
  static std::atomic<const Spelling*> spelling{&command_spelling()};
  return spelling;
}

}  // namespace

std::string Spelling::method(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& options) const {
  std::string text = "--method " + std::string(name);
  for (const auto& [option_name, value] : options) text += " " + option(option_name, value);
  return text;
}

std::string Spelling::method_name(std::string_view name) const { return std::string(name); }

std::string Spelling::option(std::string_view name, std::string_view value) const {
  return option_name(name) + " " + std::string(value);
}

std::string Spelling::option_name(std::string_view name) const {
  std::string flag = "--" + std::string(name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

const Spelling& command_spelling() {
  static const Spelling spelling;
  return spelling;
}

const Spelling& message_spelling() { return *current_spelling().load(); }

void set_message_spelling(const Spelling& spelling) { current_spelling().store(&spelling); }

}  // namespace cdens

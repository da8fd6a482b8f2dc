#include "io/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "cdens/core/types.hpp"

namespace cdens {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::string> split_list(const std::string& text, char delimiter,
                                    const std::string& what) {
  if (trim(text).empty()) throw InvalidArgument(what + ": the list is empty");
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(delimiter, start);
    items.push_back(trim(text.substr(start, end == std::string::npos ? end : end - start)));
    if (items.back().empty()) {
      throw InvalidArgument(what + ": empty item in '" + text + "'");
    }
    if (end == std::string::npos) return items;
    start = end + 1;
  }
}

double parse_number(const std::string& text, const std::string& what) {
  const std::string cell = trim(text);
  // from_chars does not accept a leading '+'.
  const std::size_t skip = !cell.empty() && cell.front() == '+' ? 1 : 0;
  double value = 0.0;
  const auto [end, status] = std::from_chars(cell.data() + skip, cell.data() + cell.size(), value);
  if (cell.size() == skip || status != std::errc() || end != cell.data() + cell.size() ||
      !std::isfinite(value)) {
    throw InvalidArgument(what + ": '" + text + "' is not a finite number");
  }
  return value;
}

std::string exact_text(double value) {
  char buffer[32];
  const auto [end, status] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return status == std::errc() ? std::string(buffer, end) : std::string("nan");
}

std::vector<double> parse_number_list(const std::string& text, const std::string& what) {
  std::vector<double> values;
  for (const auto& item : split_list(text, ',', what)) values.push_back(parse_number(item, what));
  return values;
}

std::string join(const std::vector<std::string>& names, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) joined += (i ? separator : "") + names[i];
  return joined;
}

std::string format_short(double value) {
  if (std::isfinite(value) && value == std::round(value) && std::abs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

}  // namespace cdens

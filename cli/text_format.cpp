#include "text_format.hpp"

#include <cmath>
#include <cstdio>

namespace cdens::cli {

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

}  // namespace cdens::cli

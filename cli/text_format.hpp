#pragma once
// Text for people to read that every command writes the same way.

#include <string>
#include <vector>

namespace cdens::cli {

/// `names` separated by `separator`.
std::string join(const std::vector<std::string>& names, const std::string& separator);

/// A number for people to read: integers in full, anything else to 6 significant digits.
std::string format_short(double value);

}  // namespace cdens::cli

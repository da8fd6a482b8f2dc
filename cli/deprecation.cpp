#include "deprecation.hpp"

#include <iostream>

namespace cdens::cli {

void warn_deprecated(const std::string& old_spelling, const std::string& preferred) {
  std::cerr << "cdens: warning: " << old_spelling << " is deprecated and will be removed; use "
            << preferred << '\n';
}

void warn_deprecated_group(const DeprecatedGroup& group, const std::string& verb,
                           const std::string& replacement) {
  warn_deprecated("'cdens " + group.name + " " + verb + "'", "'" + replacement + "'");
}

}  // namespace cdens::cli

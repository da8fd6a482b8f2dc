#include "core/debug_note.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cdens {

bool debug_notes_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("CDENS_DEBUG");
    return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

void debug_note(const std::string& message) {
  if (!debug_notes_enabled()) return;
  // One write per line, so that notes of several threads do not interleave.
  const std::string line = "cdens debug: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace cdens

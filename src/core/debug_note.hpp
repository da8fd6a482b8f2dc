#pragma once
// Debug-level notes: one line on standard error when the environment variable CDENS_DEBUG is set
// (to anything but "" or "0"), nothing otherwise. For facts a user may want when measuring (which
// algorithm a query took) that do not belong in results.

#include <string>

namespace cdens {

/// True when CDENS_DEBUG asks for debug notes (read once).
bool debug_notes_enabled();

/// Writes "cdens debug: <message>" on standard error when debug_notes_enabled().
void debug_note(const std::string& message);

}  // namespace cdens

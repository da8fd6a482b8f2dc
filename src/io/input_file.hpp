#pragma once
// Opening a file the user named (a CSV table, a model file) for reading, with a message the user
// can act on: a directory is named as a directory, a missing or unreadable file by its reason.

#include <fstream>
#include <string>

namespace cdens {

/// The file at `path`, open for reading. IoError naming `path` if it is a directory or cannot
/// be opened (with the system's reason: no such file, permission denied).
std::ifstream open_input_file(const std::string& path);

}  // namespace cdens

#include "io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "cdens/core/types.hpp"

namespace cdens {

std::ifstream open_input_file(const std::string& path) {
  // An ifstream opens a directory without complaint on Linux and then reads nothing, which
  // would surface as "empty file" or "not valid JSON".
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw IoError(path + " is a directory, not a file");
  }
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int reason = errno;
    throw IoError("cannot open " + path + " for reading" +
                  (reason != 0 ? std::string(": ") + std::strerror(reason) : std::string()));
  }
  return file;
}

}  // namespace cdens

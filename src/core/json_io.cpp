#include "cdens/core/json_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cdens/core/error.hpp"
#include "core/input_file.hpp"

namespace cdens {

nlohmann::json matrix_to_json(const MatrixView& matrix) {
  return {{"rows", matrix.rows()},
          {"cols", matrix.cols()},
          {"data", std::vector<double>(matrix.data(), matrix.data() + matrix.size())}};
}

Matrix matrix_from_json(const nlohmann::json& document, std::string_view what) {
  try {
    const Index rows = json_integer(document.at("rows"), std::string(what) + " rows", 0);
    const Index cols = json_integer(document.at("cols"), std::string(what) + " cols", 0);
    const auto data = document.at("data").get<std::vector<double>>();
    // Compare by division: rows · cols may overflow.
    const bool sizes_agree = rows >= 0 && cols >= 0 &&
                             (cols == 0 ? data.empty()
                                        : data.size() % static_cast<std::size_t>(cols) == 0 &&
                                              data.size() / static_cast<std::size_t>(cols) ==
                                                  static_cast<std::size_t>(rows));
    if (!sizes_agree) {
      throw ModelFormatError(std::string(what) + ": size does not match rows × cols");
    }
    return Eigen::Map<const Matrix>(data.data(), rows, cols);
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string(what) + ": " + error.what());
  }
}

nlohmann::json vector_to_json(const VectorView& vector) {
  return std::vector<double>(vector.data(), vector.data() + vector.size());
}

Vector vector_from_json(const nlohmann::json& document, std::string_view what) {
  try {
    const auto data = document.get<std::vector<double>>();
    return Eigen::Map<const Vector>(data.data(), static_cast<Index>(data.size()));
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string(what) + ": " + error.what());
  }
}

Index json_integer(const nlohmann::json& value, std::string_view what, Index minimum,
                   Index maximum) {
  const bool in_range = value.is_number_unsigned()
                            ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(maximum)
                            : value.is_number_integer() && value.get<std::int64_t>() >= minimum &&
                                  value.get<std::int64_t>() <= maximum;
  if (!in_range) {
    throw ModelFormatError(std::string(what) + " must be an integer from " +
                           std::to_string(minimum) + " to " + std::to_string(maximum) + ", not " +
                           value.dump());
  }
  return value.is_number_unsigned() ? static_cast<Index>(value.get<std::uint64_t>())
                                    : static_cast<Index>(value.get<std::int64_t>());
}

std::vector<Index> json_integers(const nlohmann::json& value, std::string_view what, Index minimum,
                                 Index maximum) {
  if (!value.is_array()) throw ModelFormatError(std::string(what) + " is not a list");
  std::vector<Index> integers;
  for (const auto& item : value) integers.push_back(json_integer(item, what, minimum, maximum));
  return integers;
}

const nlohmann::json& json_member(const nlohmann::json& document, std::string_view key) {
  const auto found = document.find(key);
  if (!document.is_object() || found == document.end()) {
    throw ModelFormatError("model file lacks the field '" + std::string(key) + "'");
  }
  return *found;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  std::string temporary = path + ".tmp.XXXXXX";
  const int descriptor = mkstemp(temporary.data());
  if (descriptor < 0) {
    throw IoError("cannot create a temporary file beside " + path + ": " + std::strerror(errno));
  }
  const auto give_up = [&](const std::string& problem) {
    const int saved = errno;
    close(descriptor);
    std::remove(temporary.c_str());
    throw IoError(problem + " " + path + ": " + std::strerror(saved));
  };
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t count = write(descriptor, contents.data() + written, contents.size() - written);
    if (count < 0) {
      if (errno == EINTR) continue;
      give_up("cannot write");
    }
    written += static_cast<std::size_t>(count);
  }
  if (fchmod(descriptor, 0644) != 0 || fsync(descriptor) != 0) give_up("cannot flush");
  if (close(descriptor) != 0) {
    std::remove(temporary.c_str());
    throw IoError("cannot close the temporary file for " + path);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    throw IoError("cannot replace " + path + ": " + std::strerror(saved));
  }
}

nlohmann::json parse_json_text(const std::string& text, std::string_view what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string(what) + " is not valid JSON: " + error.what());
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream file = open_input_file(path);
  std::ostringstream contents;
  contents << file.rdbuf();
  return parse_json_text(contents.str(), path);
}

}  // namespace cdens

#pragma once
// JSON building blocks for model files: Eigen matrices as JSON, checked member access, and
// atomic file replacement so an interrupted write never destroys an existing model.

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// {"rows": r, "cols": c, "data": [column-major values]}; doubles round-trip exactly.
nlohmann::json matrix_to_json(const MatrixView& matrix);
Matrix matrix_from_json(const nlohmann::json& document, std::string_view what);

/// A plain JSON array.
nlohmann::json vector_to_json(const VectorView& vector);
Vector vector_from_json(const nlohmann::json& document, std::string_view what);

/// document[key], or ModelFormatError naming the missing key.
const nlohmann::json& json_member(const nlohmann::json& document, std::string_view key);

/// An integer field (a size, an index, a count): ModelFormatError naming `what` unless it is a
/// JSON integer within [minimum, maximum]. The JSON library's own get<Index>() converts a
/// fractional or huge number with undefined behaviour; model files go through this instead.
Index json_integer(const nlohmann::json& value, std::string_view what,
                   Index minimum = std::numeric_limits<Index>::min(),
                   Index maximum = std::numeric_limits<Index>::max());

/// A list of json_integer values.
std::vector<Index> json_integers(const nlohmann::json& value, std::string_view what,
                                 Index minimum = std::numeric_limits<Index>::min(),
                                 Index maximum = std::numeric_limits<Index>::max());

/// Writes `contents` to a temporary file beside `path`, flushes it to disk and renames it over
/// `path`. Throws IoError; the old file is untouched on failure.
void write_file_atomically(const std::string& path, const std::string& contents);

/// Parses JSON text; ModelFormatError naming `what` (a path, "model text") if it is not JSON.
nlohmann::json parse_json_text(const std::string& text, std::string_view what);

/// Parses a JSON file; IoError if unreadable, ModelFormatError if not JSON.
nlohmann::json read_json_file(const std::string& path);

}  // namespace cdens

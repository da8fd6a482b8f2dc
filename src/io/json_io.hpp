#pragma once
// JSON building blocks for model files: Eigen matrices as JSON, checked member access, the two
// encodings of a model file, and atomic file replacement so an interrupted write never destroys
// an existing model.
//
// A model file is one JSON document. Up to kBinaryModelFileNumbers numbers in its arrays it is
// written as JSON text; beyond, as CBOR (RFC 8949, prefixed by its self-describing tag
// 0xd9d9f7) in which every array of floating-point numbers is a byte string of little-endian
// IEEE doubles: a KCDE model of 10⁷ rows is then 8 bytes per number on disk and in memory,
// where its text took about 20 and parsing it a JSON node of 16 per number. Readers take both,
// whatever the size.

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// {"rows": r, "cols": c, "data": [column-major values]}; doubles round-trip exactly. The reader
/// takes "data" as a list of numbers or as the byte string of a binary model file.
nlohmann::json matrix_to_json(const MatrixView& matrix);
Matrix matrix_from_json(const nlohmann::json& document, std::string_view what);

/// A plain JSON array (the reader takes a binary model file's byte string too).
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

/// Numbers in a model document's arrays beyond which it is written in the binary encoding.
inline constexpr Index kBinaryModelFileNumbers = Index{1} << 20;

/// The bytes of a model file in either encoding (the CBOR tag first: binary; otherwise JSON
/// text); ModelFormatError naming `what` if they are neither.
nlohmann::json parse_model_document(const std::string& bytes, std::string_view what);

/// Reads a model file in either encoding; IoError if unreadable, ModelFormatError if it is not
/// a model document.
nlohmann::json read_model_document(const std::string& path);

/// Writes `document` atomically to `path`: as JSON text when its arrays hold fewer than
/// `binary_from` numbers, in the binary encoding otherwise.
void write_model_document(const std::string& path, nlohmann::json document,
                          Index binary_from = kBinaryModelFileNumbers);

/// A matrix with a column per training pair, of which this rank holds `columns`, at `where` in
/// a model document (a matrix_to_json object).
struct ColumnsOfRank {
  nlohmann::json::json_pointer where;
  const Matrix& columns;
};

/// A collective call: writes on rank 0, atomically, `document` (the same on every rank) with
/// each of `row_matrices` holding every rank's columns in rank order — the file
/// write_model_document writes of that whole document. In the binary encoding (from
/// `binary_from` numbers) without holding every rank's columns at once: rank 0 writes its own,
/// then receives each other rank's a chunk at a time and writes them; in JSON text (fewer
/// numbers, at most 8 MB of them by default) rank 0 receives them at once. IoError on every
/// rank when rank 0 cannot write; InvalidArgument on every rank for matrices that disagree.
void write_model_document_of_ranks(const std::string& path, nlohmann::json document,
                                   const std::vector<ColumnsOfRank>& row_matrices,
                                   const Communicator& communicator,
                                   Index binary_from = kBinaryModelFileNumbers);

}  // namespace cdens

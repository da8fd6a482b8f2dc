#pragma once
// The one translation of a model reader's failures into ModelFormatError.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cdens/core/types.hpp"

namespace cdens {

/// "what: message", or the message alone when `what` is empty.
inline std::string model_format_message(std::string_view what, const char* message) {
  return what.empty() ? std::string(message) : std::string(what) + ": " + message;
}

/// `read()`, with nlohmann's errors (a field of the wrong type, a number out of its type's
/// range) reported as a malformed model file, prefixed by `what`.
template <class Read>
auto reading_json(std::string_view what, const Read& read) -> decltype(read()) {
  try {
    return read();
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(model_format_message(what, error.what()));
  }
}

/// reading_json for a part of a model whose constructor checks it: a value the constructor
/// refuses (InvalidArgument: coefficients all zero, a non-positive width) makes the file
/// malformed too.
template <class Read>
auto reading_model_part(std::string_view what, const Read& read) -> decltype(read()) {
  try {
    return reading_json(what, read);
  } catch (const InvalidArgument& error) {
    throw ModelFormatError(model_format_message(what, error.what()));
  }
}

}  // namespace cdens

#include "cdens/core/json_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cdens/core/error.hpp"
#include "core/input_file.hpp"
#include "core/json_reading.hpp"

namespace cdens {
namespace {

/// The self-describing CBOR tag 55799 (RFC 8949 §3.4.6): the first bytes of a binary model file.
constexpr std::uint8_t kCborMagic[] = {0xd9, 0xd9, 0xf7};

/// Nesting of objects and arrays a binary model file may have: far more than any model needs
/// (a pool of kernel gates is about ten deep), and few enough that CBOR's recursive reader
/// cannot exhaust the stack on a hostile file.
constexpr int kMaximumNesting = 200;

/// The JSON library's document builder, refusing a document nested deeper than kMaximumNesting
/// before its reader recurses further. A non-finite float (CBOR can hold one, JSON text cannot)
/// becomes null, as the JSON text of the same document writes it: a binary file reads as its text
/// would, and a reader that needs a number refuses it (a fuzzed Parzen file with an infinite
/// scale scored NaN).
class NestingLimitedBuilder : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  using Builder = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  explicit NestingLimitedBuilder(nlohmann::json& result) : Builder(result) {}

  bool number_float(double value, const std::string& text) {
    return std::isfinite(value) ? Builder::number_float(value, text) : Builder::null();
  }

  bool start_object(std::size_t size) { return enter() && Builder::start_object(size); }
  bool start_array(std::size_t size) { return enter() && Builder::start_array(size); }
  bool end_object() { return leave() && Builder::end_object(); }
  bool end_array() { return leave() && Builder::end_array(); }

 private:
  bool enter() {
    if (++depth_ > kMaximumNesting) {
      throw ModelFormatError("nested more than " + std::to_string(kMaximumNesting) + " deep");
    }
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

/// Whether `value` is a non-empty array of floating-point numbers only.
bool is_float_array(const nlohmann::json& value) {
  return value.is_array() && !value.empty() &&
         std::all_of(value.begin(), value.end(),
                     [](const nlohmann::json& item) { return item.is_number_float(); });
}

/// The numbers in the float arrays of `document`, at any depth.
Index float_array_numbers(const nlohmann::json& document) {
  if (is_float_array(document)) return static_cast<Index>(document.size());
  Index count = 0;
  if (document.is_structured()) {
    for (const auto& item : document) count += float_array_numbers(item);
  }
  return count;
}

/// `document` with every float array replaced by the byte string of its numbers as
/// little-endian IEEE doubles (independent of the host's byte order).
void encode_float_arrays(nlohmann::json& document) {
  if (is_float_array(document)) {
    nlohmann::json::binary_t bytes;
    bytes.reserve(document.size() * sizeof(double));
    for (const auto& item : document) {
      const double number = item.get<double>();
      std::uint64_t bits = 0;
      std::memcpy(&bits, &number, sizeof bits);
      for (int shift = 0; shift < 64; shift += 8) {
        bytes.push_back(static_cast<std::uint8_t>(bits >> shift));
      }
    }
    document = nlohmann::json::binary(std::move(bytes));
    return;
  }
  if (document.is_structured()) {
    for (auto& item : document) encode_float_arrays(item);
  }
}

/// The numbers of a float array, from its list (JSON text) or its byte string (binary file).
std::vector<double> doubles_from_json(const nlohmann::json& value, std::string_view what) {
  if (!value.is_binary()) return value.get<std::vector<double>>();
  const auto& bytes = value.get_binary();
  if (bytes.size() % sizeof(double) != 0) {
    throw ModelFormatError(std::string(what) + ": a byte string of " +
                           std::to_string(bytes.size()) + " bytes is no list of 8-byte doubles");
  }
  std::vector<double> numbers(bytes.size() / sizeof(double));
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    std::uint64_t bits = 0;
    for (int b = 0; b < 8; ++b) {
      bits |= static_cast<std::uint64_t>(bytes[i * sizeof(double) + static_cast<std::size_t>(b)])
              << (8 * b);
    }
    std::memcpy(&numbers[i], &bits, sizeof bits);
    // The writer makes byte strings of finite numbers only (JSON text has no other).
    if (!std::isfinite(numbers[i])) {
      throw ModelFormatError(std::string(what) + ": number " + std::to_string(i) +
                             " of its byte string is not finite");
    }
  }
  return numbers;
}

}  // namespace

nlohmann::json matrix_to_json(const MatrixView& matrix) {
  return {{"rows", matrix.rows()},
          {"cols", matrix.cols()},
          {"data", std::vector<double>(matrix.data(), matrix.data() + matrix.size())}};
}

Matrix matrix_from_json(const nlohmann::json& document, std::string_view what) {
  return reading_json(what, [&]() -> Matrix {
    const Index rows = json_integer(document.at("rows"), std::string(what) + " rows", 0);
    const Index cols = json_integer(document.at("cols"), std::string(what) + " cols", 0);
    const std::vector<double> data = doubles_from_json(document.at("data"), what);
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
  });
}

nlohmann::json vector_to_json(const VectorView& vector) {
  return std::vector<double>(vector.data(), vector.data() + vector.size());
}

Vector vector_from_json(const nlohmann::json& document, std::string_view what) {
  return reading_json(what, [&]() -> Vector {
    const std::vector<double> data = doubles_from_json(document, what);
    return Eigen::Map<const Vector>(data.data(), static_cast<Index>(data.size()));
  });
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

nlohmann::json parse_model_document(const std::string& bytes, std::string_view what) {
  const std::size_t magic = sizeof kCborMagic;
  if (bytes.size() < magic || std::memcmp(bytes.data(), kCborMagic, magic) != 0) {
    return parse_json_text(bytes, what);
  }
  nlohmann::json document;
  NestingLimitedBuilder builder(document);
  try {
    nlohmann::json::sax_parse(bytes.begin() + static_cast<std::ptrdiff_t>(magic), bytes.end(),
                              &builder, nlohmann::json::input_format_t::cbor);
  } catch (const nlohmann::json::exception& error) {
    throw ModelFormatError(std::string(what) +
                           " is not a valid binary model file: " + error.what());
  } catch (const ModelFormatError& error) {
    throw ModelFormatError(std::string(what) +
                           " is not a valid binary model file: " + error.what());
  }
  return document;
}

nlohmann::json read_model_document(const std::string& path) {
  std::ifstream file = open_input_file(path);
  // Read in one piece of the file's size: a stream buffer grown by doubling and copied out would
  // hold a large model's bytes up to three times over.
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  file.seekg(0, std::ios::beg);
  std::string bytes(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (!file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw IoError("cannot read " + path);
  }
  return parse_model_document(bytes, path);
}

void write_model_document(const std::string& path, nlohmann::json document, Index binary_from) {
  if (float_array_numbers(document) < binary_from) {
    write_file_atomically(path, document.dump(1) + "\n");
    return;
  }
  encode_float_arrays(document);
  std::string bytes(std::begin(kCborMagic), std::end(kCborMagic));
  nlohmann::json::to_cbor(document, bytes);
  write_file_atomically(path, bytes);
}

}  // namespace cdens

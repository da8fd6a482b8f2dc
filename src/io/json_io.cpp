#include "io/json_io.hpp"

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
#include <optional>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"
#include "io/input_file.hpp"
#include "io/json_reading.hpp"

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

/// Appends `value` to `bytes` as a little-endian IEEE double (independent of the host's byte
/// order).
void append_little_endian(double value, std::vector<std::uint8_t>& bytes) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  for (int shift = 0; shift < 64; shift += 8)
    bytes.push_back(static_cast<std::uint8_t>(bits >> shift));
}

/// A file written under a temporary name beside `path` and renamed over it by commit(), so that
/// an interrupted write never destroys the file there; removed unless committed. IoError when
/// the temporary file cannot be created; a failed write is kept and thrown by commit(), so that
/// a writer that must go on (a collective write) can.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path)
      : path_(std::move(path)), temporary_(path_ + ".tmp.XXXXXX") {
    descriptor_ = mkstemp(temporary_.data());
    if (descriptor_ < 0) {
      throw IoError("cannot create a temporary file beside " + path_ + ": " + std::strerror(errno));
    }
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (descriptor_ >= 0) close(descriptor_);
    if (!committed_) std::remove(temporary_.c_str());
  }

  void write(const char* data, std::size_t size) {
    std::size_t written = 0;
    while (problem_.empty() && written < size) {
      const ssize_t count = ::write(descriptor_, data + written, size - written);
      if (count >= 0) {
        written += static_cast<std::size_t>(count);
      } else if (errno != EINTR) {
        problem_ = "cannot write " + path_ + ": " + std::strerror(errno);
      }
    }
  }

  /// Flushes the file to disk and renames it over `path`; IoError for a failed write before.
  void commit() {
    if (!problem_.empty()) throw IoError(problem_);
    if (fchmod(descriptor_, 0644) != 0 || fsync(descriptor_) != 0) {
      throw IoError("cannot flush " + path_ + ": " + std::strerror(errno));
    }
    const int closed = close(descriptor_);
    descriptor_ = -1;
    if (closed != 0) throw IoError("cannot close the temporary file for " + path_);
    if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
      throw IoError("cannot replace " + path_ + ": " + std::strerror(errno));
    }
    committed_ = true;
  }

 private:
  std::string path_;
  std::string temporary_;
  int descriptor_ = -1;
  std::string problem_;
  bool committed_ = false;
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
    for (const auto& item : document) append_little_endian(item.get<double>(), bytes);
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
  AtomicFile file(path);
  file.write(contents.data(), contents.size());
  file.commit();
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

namespace {

/// Doubles per message when a rank sends its rows to the writer (512 kB).
constexpr std::size_t kRowChunk = std::size_t{1} << 16;

/// Writes a model document in the binary encoding (write_model_document's CBOR bytes) on rank 0,
/// each row matrix's data streamed from every rank in rank order. Every rank walks the document
/// alike, so that all take part in the same sends in the same order; only rank 0 writes.
class RowStreamingWriter {
 public:
  RowStreamingWriter(AtomicFile* file, const std::vector<ColumnsOfRank>& row_matrices,
                     std::vector<double> rank_columns, const Communicator& communicator)
      : file_(file),
        row_matrices_(row_matrices),
        rank_columns_(std::move(rank_columns)),
        communicator_(communicator) {}

  /// `value` as nlohmann's to_cbor writes it, with a placeholder of a row matrix (a byte string
  /// whose subtype is its number) replaced by the byte string of every rank's columns.
  void write(const nlohmann::json& value) {
    if (value.is_binary() && value.get_binary().has_subtype()) {
      stream_rows(static_cast<std::size_t>(value.get_binary().subtype()));
    } else if (value.is_object()) {
      append_head(5, value.size());
      for (const auto& item : value.items()) {
        append_leaf(nlohmann::json(item.key()));
        write(item.value());
      }
    } else if (value.is_array()) {
      append_head(4, value.size());
      for (const auto& item : value) write(item);
    } else {
      append_leaf(value);
    }
  }

  /// Writes what is left in the buffer.
  void flush() {
    if (file_ != nullptr)
      file_->write(reinterpret_cast<const char*>(buffer_.data()), buffer_.size());
    buffer_.clear();
  }

 private:
  /// The head of a CBOR data item of major type `major` with argument `value` (RFC 8949 §3), in
  /// its shortest form, as to_cbor writes it.
  void append_head(std::uint8_t major, std::uint64_t value) {
    if (file_ == nullptr) return;
    const auto type = static_cast<std::uint8_t>(major << 5);
    if (value < 24) {
      buffer_.push_back(static_cast<std::uint8_t>(type | value));
      return;
    }
    const int bytes = value <= 0xff ? 1 : value <= 0xffff ? 2 : value <= 0xffffffffU ? 4 : 8;
    buffer_.push_back(static_cast<std::uint8_t>(type | (bytes == 1   ? 24
                                                        : bytes == 2 ? 25
                                                        : bytes == 4 ? 26
                                                                     : 27)));
    for (int b = bytes - 1; b >= 0; --b)
      buffer_.push_back(static_cast<std::uint8_t>(value >> (8 * b)));
  }

  void append_leaf(const nlohmann::json& value) {
    if (file_ != nullptr) nlohmann::json::to_cbor(value, buffer_);
  }

  /// The byte string of row matrix `matrix`: rank 0's columns, then every other rank's, sent to
  /// rank 0 kRowChunk doubles at a time (by broadcast, the one send the Communicator has).
  void stream_rows(std::size_t matrix) {
    const Matrix& mine = row_matrices_[matrix].columns;
    const auto rows = static_cast<std::uint64_t>(mine.rows());
    std::uint64_t total = 0;
    for (const double columns : rank_columns_) total += rows * static_cast<std::uint64_t>(columns);
    append_head(2, total * sizeof(double));
    std::vector<double> chunk;
    for (int rank = 0; rank < communicator_.size(); ++rank) {
      const std::size_t count = static_cast<std::size_t>(
          rows * static_cast<std::uint64_t>(rank_columns_[std::size_t(rank)]));
      for (std::size_t begin = 0; begin < count; begin += kRowChunk) {
        const std::size_t size = std::min(kRowChunk, count - begin);
        if (rank == 0) {
          if (file_ != nullptr) {
            for (std::size_t i = 0; i < size; ++i) {
              append_little_endian(mine.data()[begin + i], buffer_);
            }
          }
        } else {
          chunk.resize(size);
          if (communicator_.rank() == rank) std::copy_n(mine.data() + begin, size, chunk.data());
          communicator_.broadcast(chunk.data(), size, rank);
          if (file_ != nullptr) {
            for (const double value : chunk) append_little_endian(value, buffer_);
          }
        }
        if (buffer_.size() >= kRowChunk * sizeof(double)) flush();
      }
    }
  }

  AtomicFile* file_;  // rank 0's; null on the others
  const std::vector<ColumnsOfRank>& row_matrices_;
  std::vector<double> rank_columns_;
  const Communicator& communicator_;
  std::vector<std::uint8_t> buffer_;
};

}  // namespace

void write_model_document_of_ranks(const std::string& path, nlohmann::json document,
                                   const std::vector<ColumnsOfRank>& row_matrices,
                                   const Communicator& communicator, Index binary_from) {
  std::vector<double> shape;
  for (const ColumnsOfRank& matrix : row_matrices) {
    shape.push_back(static_cast<double>(matrix.columns.rows()));
  }
  shape.push_back(static_cast<double>(row_matrices.size()));
  require_equal_on_every_rank(communicator, shape, "the row matrices of the model's document");
  const Index columns = row_matrices.empty() ? 0 : row_matrices.front().columns.cols();
  agree_on_errors(communicator, [&] {
    for (const ColumnsOfRank& matrix : row_matrices) {
      if (matrix.columns.cols() != columns) {
        throw InvalidArgument("the row matrices of a model of ranks differ in their columns");
      }
    }
  });
  const std::vector<double> rank_columns = communicator.gather_all({static_cast<double>(columns)});
  Index every_column = 0;
  for (const double count : rank_columns) every_column += static_cast<Index>(count);
  // Each row matrix in the document: its shape and a placeholder numbered by the matrix.
  Index numbers = 0;
  for (std::size_t m = 0; m < row_matrices.size(); ++m) {
    nlohmann::json& matrix = document.at(row_matrices[m].where);
    matrix["rows"] = row_matrices[m].columns.rows();
    matrix["cols"] = every_column;
    matrix["data"] = nlohmann::json::binary({}, static_cast<std::uint64_t>(m));
    numbers += row_matrices[m].columns.rows() * every_column;
  }
  numbers += float_array_numbers(document);
  if (numbers < binary_from) {
    // A small model (below 8 MB of numbers) in JSON text, as one process writes it: rank 0
    // receives the rows at once.
    for (const ColumnsOfRank& matrix : row_matrices) {
      const Matrix& own = matrix.columns;
      std::vector<double> every =
          communicator.gather_all(std::vector<double>(own.data(), own.data() + own.size()));
      if (communicator.rank() == 0) document.at(matrix.where)["data"] = std::move(every);
    }
    agree_on_errors(communicator, [&] {
      if (communicator.rank() == 0) write_model_document(path, std::move(document), binary_from);
    });
    return;
  }
  encode_float_arrays(document);

  std::optional<AtomicFile> file;
  agree_on_errors(communicator, [&] {
    if (communicator.rank() == 0) file.emplace(path);
  });
  RowStreamingWriter writer(file ? &*file : nullptr, row_matrices, rank_columns, communicator);
  if (file) file->write(reinterpret_cast<const char*>(kCborMagic), sizeof kCborMagic);
  writer.write(document);
  writer.flush();
  agree_on_errors(communicator, [&] {
    if (file) file->commit();
  });
}

}  // namespace cdens

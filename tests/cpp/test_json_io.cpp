// Tests of io/json_io.hpp: atomic file replacement, Eigen matrices as JSON, checked access,
// the binary encoding of model documents (byte order, hostile files).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "cdens/core/types.hpp"
#include "io/json_io.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::message_of;

namespace fs = std::filesystem;

/// A fresh empty directory, removed with its contents at the end of the test.
class TemporaryDirectory {
 public:
  TemporaryDirectory() : path_(test::temporary_path("dir")) { fs::create_directory(path_); }
  ~TemporaryDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::set<std::string> listing(const fs::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory))
    names.insert(entry.path().filename().string());
  return names;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(JsonIoTest, WriteFileAtomicallyCreatesAndReplacesLeavingNoTemporaryFiles) {
  TemporaryDirectory directory;
  const fs::path target = directory.path() / "model.json";
  write_file_atomically(target.string(), "first version, rather long\n");
  EXPECT_EQ(test::file_bytes(target), "first version, rather long\n");
  write_file_atomically(target.string(), "second");
  // Replaced, not overwritten in place: nothing of the longer old content remains.
  EXPECT_EQ(test::file_bytes(target), "second");
  write_file_atomically(target.string(), "");
  EXPECT_EQ(test::file_bytes(target), "");
  std::string big(300000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>('a' + i % 26);
  write_file_atomically(target.string(), big);
  EXPECT_EQ(test::file_bytes(target), big);
  EXPECT_EQ(listing(directory.path()), std::set<std::string>{"model.json"});
}

TEST(JsonIoTest, WriteFileAtomicallyIntoMissingDirectoryTouchesNothing) {
  TemporaryDirectory directory;
  write_file_atomically((directory.path() / "keep.txt").string(), "keep");
  const fs::path target = directory.path() / "missing" / "model.json";
  const std::string message =
      message_of<IoError>([&] { write_file_atomically(target.string(), "contents"); });
  EXPECT_NE(message.find(target.string()), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(directory.path() / "missing"));
  EXPECT_EQ(listing(directory.path()), std::set<std::string>{"keep.txt"});
  EXPECT_EQ(test::file_bytes(directory.path() / "keep.txt"), "keep");
}

TEST(JsonIoTest, FailedReplacementLeavesTheOldContentAndNoTemporaryFile) {
  // Renaming a file over a non-empty directory fails after the temporary file was written.
  TemporaryDirectory directory;
  const fs::path target = directory.path() / "occupied";
  fs::create_directory(target);
  write_file_atomically((target / "inside.txt").string(), "old");
  EXPECT_THROW(write_file_atomically(target.string(), "new"), IoError);
  EXPECT_EQ(listing(directory.path()), std::set<std::string>{"occupied"});
  EXPECT_EQ(listing(target), std::set<std::string>{"inside.txt"});
  EXPECT_EQ(test::file_bytes(target / "inside.txt"), "old");
}

TEST(JsonIoTest, ReadModelDocumentOfJsonText) {
  TemporaryDirectory directory;
  const fs::path path = directory.path() / "doc.json";
  write_file_atomically(path.string(), R"({"a": [1, 2.5], "b": "text"})");
  const nlohmann::json document = read_model_document(path.string());
  EXPECT_EQ(document.at("a").at(1).get<double>(), 2.5);
  EXPECT_EQ(document.at("b").get<std::string>(), "text");

  EXPECT_THROW(read_model_document((directory.path() / "absent.json").string()), IoError);
  write_file_atomically(path.string(), "{\"a\": [1, 2");
  std::string message = message_of<ModelFormatError>([&] { read_model_document(path.string()); });
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  write_file_atomically(path.string(), "");
  EXPECT_THROW(read_model_document(path.string()), ModelFormatError);
}

TEST(JsonIoTest, OverflowingNumberInJsonTextIsModelFormatError) {
  // 1e999 is JSON syntax but no double: nlohmann throws out_of_range (not parse_error), which
  // must still come out as ModelFormatError.
  TemporaryDirectory directory;
  const fs::path path = directory.path() / "doc.json";
  write_file_atomically(path.string(), R"({"a": [1e999]})");
  EXPECT_THROW(read_model_document(path.string()), ModelFormatError);
}

TEST(JsonIoTest, MatrixJsonIsColumnMajorAndRoundTripsExactly) {
  Matrix small(2, 3);
  small << 1, 2, 3, 4, 5, 6;
  const nlohmann::json document = matrix_to_json(small);
  EXPECT_EQ(document.at("rows").get<Index>(), 2);
  EXPECT_EQ(document.at("cols").get<Index>(), 3);
  EXPECT_EQ(document.at("data").get<std::vector<double>>(),
            (std::vector<double>{1, 4, 2, 5, 3, 6}));

  // Random bit patterns (every exponent), subnormals, extremes and signed zero, through text.
  std::mt19937_64 engine(77);
  Matrix values(7, 41);
  for (Index j = 0; j < values.cols(); ++j) {
    for (Index i = 0; i < values.rows(); ++i) {
      double value;
      do {
        const std::uint64_t bits = engine();
        std::memcpy(&value, &bits, sizeof value);
      } while (!std::isfinite(value));
      values(i, j) = value;
    }
  }
  values(0, 0) = -0.0;
  values(1, 0) = std::numeric_limits<double>::denorm_min();
  values(2, 0) = std::numeric_limits<double>::max();
  values(3, 0) = std::numeric_limits<double>::lowest();
  values(4, 0) = 0.1;
  values(5, 0) = 1.0 / 3.0;
  values(6, 0) = 1e-300;
  const Matrix back =
      matrix_from_json(nlohmann::json::parse(matrix_to_json(values).dump()), "values");
  ASSERT_EQ(back.rows(), values.rows());
  ASSERT_EQ(back.cols(), values.cols());
  for (Index j = 0; j < values.cols(); ++j) {
    for (Index i = 0; i < values.rows(); ++i) {
      EXPECT_TRUE(same_bits(back(i, j), values(i, j))) << i << ", " << j << ": " << values(i, j);
    }
  }
  // Empty shapes survive too.
  const Matrix empty = matrix_from_json(matrix_to_json(Matrix(3, 0)), "empty");
  EXPECT_EQ(empty.rows(), 3);
  EXPECT_EQ(empty.cols(), 0);
}

TEST(JsonIoTest, VectorJsonRoundTripsExactly) {
  Vector values(5);
  values << -0.0, 1.0 / 7.0, 6.02214076e23, -5e-324, 42.0;
  const nlohmann::json document = vector_to_json(values);
  ASSERT_TRUE(document.is_array());
  const Vector back = vector_from_json(nlohmann::json::parse(document.dump()), "values");
  ASSERT_EQ(back.size(), 5);
  for (Index i = 0; i < 5; ++i) EXPECT_TRUE(same_bits(back(i), values(i))) << i;
  EXPECT_THROW(vector_from_json(nlohmann::json::parse(R"({"a": 1})"), "v"), ModelFormatError);
  EXPECT_THROW(vector_from_json(nlohmann::json::parse(R"([1, "two"])"), "v"), ModelFormatError);
}

TEST(JsonIoTest, MalformedMatrixIsModelFormatErrorNamingIt) {
  const char* bad[] = {
      R"({"rows": 2, "cols": 2, "data": [1, 2, 3]})",  // size mismatch
      R"({"rows": 2, "cols": 2, "data": [1, 2, 3, 4, 5]})",
      R"({"rows": -1, "cols": -2, "data": [1, 2]})",  // negative shape
      R"({"rows": 2, "data": [1, 2]})",               // missing cols
      R"({"rows": 1, "cols": 2})",                    // missing data
      R"({"rows": "1", "cols": 2, "data": [1, 2]})",  // wrong type
      R"({"rows": 1, "cols": 2, "data": [1, null]})",
      R"([1, 2, 3])",
  };
  for (const char* text : bad) {
    SCOPED_TRACE(text);
    const std::string message = message_of<ModelFormatError>(
        [&] { matrix_from_json(nlohmann::json::parse(text), "centres"); });
    EXPECT_NE(message.find("centres"), std::string::npos) << message;
  }
}

// rows · cols overflows a 64-bit Index here: the size check must not multiply.
TEST(JsonIoTest, HugeMatrixShapeIsModelFormatError) {
  const auto document =
      nlohmann::json::parse(R"({"rows": 4294967296, "cols": 4294967296, "data": []})");
  EXPECT_THROW(matrix_from_json(document, "centres"), ModelFormatError);
}

TEST(JsonIoTest, JsonMemberNamesTheMissingKey) {
  const nlohmann::json document = {{"present", 1}};
  EXPECT_EQ(json_member(document, "present").get<int>(), 1);
  std::string message = message_of<ModelFormatError>([&] { json_member(document, "absent_key"); });
  EXPECT_NE(message.find("absent_key"), std::string::npos) << message;
  message = message_of<ModelFormatError>([&] { json_member(nlohmann::json::array({1}), "key"); });
  EXPECT_NE(message.find("key"), std::string::npos) << message;
  EXPECT_THROW(json_member(nlohmann::json(3.5), "key"), ModelFormatError);
}

TEST(JsonIoTest, BinaryDocumentHoldsDoublesAsLittleEndianBytes) {
  TemporaryDirectory directory;
  const std::string path = (directory.path() / "one_array").string();
  write_model_document(path, nlohmann::json{{"v", std::vector<double>{1.0, -2.5}}}, 0);
  // The tag, a map of one pair, the key "v", a byte string of 16 bytes, then 1.0 and -2.5.
  const std::string expected = std::string("\xd9\xd9\xf7\xa1\x61v\x50", 7) +
                               std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8) +
                               std::string("\x00\x00\x00\x00\x00\x00\x04\xc0", 8);
  EXPECT_EQ(test::file_bytes(path), expected);
  EXPECT_EQ(vector_from_json(read_model_document(path).at("v"), "v"),
            Vector::LinSpaced(2, 1.0, -2.5));
}

TEST(JsonIoTest, HostileBinaryDocumentsAreRefusedWithAMessage) {
  const std::string tag = "\xd9\xd9\xf7";
  // Truncated: a map that promises one pair and ends.
  EXPECT_NE(message_of<ModelFormatError>([&] {
              parse_model_document(tag + "\xa1", "m.bin");
            }).find("m.bin is not a valid binary model file"),
            std::string::npos);
  // Arrays nested a hundred thousand deep: refused before the reader's recursion goes deep.
  EXPECT_NE(message_of<ModelFormatError>([&] {
              parse_model_document(tag + std::string(100000, '\x81') + "\x01", "deep.bin");
            }).find("nested more than"),
            std::string::npos);
  // A byte string of 7 bytes where doubles are expected.
  const nlohmann::json odd = {
      {"rows", 1}, {"cols", 1}, {"data", nlohmann::json::binary({1, 2, 3, 4, 5, 6, 7})}};
  EXPECT_NE(message_of<ModelFormatError>([&] {
              matrix_from_json(odd, "centres");
            }).find("centres: a byte string of 7 bytes"),
            std::string::npos);
  // An infinite double in a byte string (8 bytes: +inf, little-endian).
  const nlohmann::json infinite = {
      {"rows", 1}, {"cols", 1}, {"data", nlohmann::json::binary({0, 0, 0, 0, 0, 0, 0xf0, 0x7f})}};
  EXPECT_NE(message_of<ModelFormatError>([&] {
              matrix_from_json(infinite, "scales");
            }).find("scales: number 0 of its byte string is not finite"),
            std::string::npos);
  // A CBOR float of +inf (f9 7c 00, half precision) reads as the null of its JSON text, which a
  // reader that needs a number refuses.
  const nlohmann::json document =
      parse_model_document(tag + std::string("\xa1\x61s\xf9\x7c\x00", 6), "inf.bin");
  EXPECT_TRUE(document.at("s").is_null());
}

}  // namespace
}  // namespace cdens

// Tests of io/csv.hpp: reading numeric CSV with exact values and precise error positions,
// choosing columns, and writing numbers that read back bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "io/csv.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using test::message_of;

CsvTable parse_text(const std::string& text, const CsvFormat& format = {}) {
  std::istringstream input(text);
  return parse_csv(input, "data.csv", format);
}

/// The message of the ParseError that parsing `text` throws ("" and a test failure otherwise).
std::string parse_error_of(const std::string& text, const CsvFormat& format = {}) {
  try {
    parse_text(text, format);
  } catch (const ParseError& error) {
    return error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected ParseError, got another exception: " << error.what();
    return {};
  }
  ADD_FAILURE() << "expected ParseError for input:\n" << text;
  return {};
}

TEST(CsvTest, HeaderAndValuesWithSamplesAsColumns) {
  const CsvTable table = parse_text("a,b,c\n1,2,3\n4,5,6\n");
  ASSERT_EQ(table.column_names, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(table.values.rows(), 3);
  ASSERT_EQ(table.values.cols(), 2);
  // CSV row r is column r; CSV column c is row c.
  for (Index r = 0; r < 2; ++r) {
    for (Index c = 0; c < 3; ++c) EXPECT_EQ(table.values(c, r), static_cast<double>(3 * r + c + 1));
  }
  EXPECT_EQ(table.source, "data.csv");
}

TEST(CsvTest, AcceptsCrlfBlankLinesSpacesPlusSignsAndExponents) {
  const CsvTable table =
      parse_text("\r\n  x , y\t\r\n\r\n  +1 ,\t2.5e-3 \r\n\n   \n-1E+2,.5\r\n+4.25e1,-0\n");
  ASSERT_EQ(table.column_names, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(table.values.rows(), 2);
  ASSERT_EQ(table.values.cols(), 3);
  // Correctly rounded decimal conversion gives exactly the compiler's literals.
  EXPECT_EQ(table.values(0, 0), 1.0);
  EXPECT_EQ(table.values(1, 0), 2.5e-3);
  EXPECT_EQ(table.values(0, 1), -100.0);
  EXPECT_EQ(table.values(1, 1), 0.5);
  EXPECT_EQ(table.values(0, 2), 42.5);
  EXPECT_EQ(table.values(1, 2), 0.0);
}

TEST(CsvTest, WithoutHeaderColumnsAreNamedByPosition) {
  CsvFormat format;
  format.has_header = false;
  const CsvTable table = parse_text("1,2\n3,4\n5,6\n", format);
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"0", "1"}));
  ASSERT_EQ(table.values.rows(), 2);
  ASSERT_EQ(table.values.cols(), 3);
  EXPECT_EQ(table.values(0, 0), 1.0);
  EXPECT_EQ(table.values(1, 2), 6.0);
}

TEST(CsvTest, OtherDelimiter) {
  CsvFormat format;
  format.delimiter = ';';
  const CsvTable table = parse_text("p;q\n1.5;-2\n", format);
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(table.values(0, 0), 1.5);
  EXPECT_EQ(table.values(1, 0), -2.0);
}

TEST(CsvTest, ResolveColumnsByNameAndByIndex) {
  const CsvTable table = parse_text("x,y,z\n1,2,3\n4,5,6\n");
  EXPECT_EQ(resolve_columns(table, {"z", "x"}), (std::vector<Index>{2, 0}));
  EXPECT_EQ(resolve_columns(table, {"1", "2", "0"}), (std::vector<Index>{1, 2, 0}));
  EXPECT_EQ(resolve_columns(table, {"y", "0"}), (std::vector<Index>{1, 0}));

  const Matrix selected = select_columns(table, resolve_columns(table, {"z", "x"}));
  ASSERT_EQ(selected.rows(), 2);
  ASSERT_EQ(selected.cols(), 2);
  EXPECT_EQ(selected(0, 0), 3.0);
  EXPECT_EQ(selected(1, 0), 1.0);
  EXPECT_EQ(selected(0, 1), 6.0);
  EXPECT_EQ(selected(1, 1), 4.0);
}

TEST(CsvTest, ColumnNameTakesPrecedenceOverIndex) {
  // The column named "0" is at position 1 and the column named "1" at position 0.
  const CsvTable table = parse_text("1,0,2\n10,20,30\n");
  EXPECT_EQ(resolve_columns(table, {"0"}), (std::vector<Index>{1}));
  EXPECT_EQ(resolve_columns(table, {"1"}), (std::vector<Index>{0}));
  EXPECT_EQ(resolve_columns(table, {"2"}), (std::vector<Index>{2}));
}

TEST(CsvTest, UnknownColumnErrorListsKnownColumns) {
  const CsvTable table = parse_text("alpha,beta,gamma\n1,2,3\n");
  for (const std::string spec : {"delta", "3", "-1", "1.0", " alpha", ""}) {
    SCOPED_TRACE("spec '" + spec + "'");
    const std::string message = message_of<InvalidArgument>([&] {
      resolve_columns(table, {"alpha", spec});
    });
    EXPECT_NE(message.find("'" + spec + "'"), std::string::npos) << message;
    for (const char* known : {"alpha", "beta", "gamma"}) {
      EXPECT_NE(message.find(known), std::string::npos) << message;
    }
  }
  EXPECT_THROW(resolve_columns(table, {}), InvalidArgument);
}

TEST(CsvTest, RaggedRowReportsFileLineAndColumn) {
  // Too few fields on line 3: the first missing field is column 2.
  std::string message = parse_error_of("a,b\n1,2\n3\n");
  EXPECT_NE(message.find("data.csv:3:2"), std::string::npos) << message;
  // Too many fields on line 2: the first extra field is column 3.
  message = parse_error_of("a,b\n1,2,3\n");
  EXPECT_NE(message.find("data.csv:2:3"), std::string::npos) << message;
  // Blank lines still count as lines.
  message = parse_error_of("a,b\n\n1,2\r\n\r\n4,5,6\n");
  EXPECT_NE(message.find("data.csv:5:3"), std::string::npos) << message;
}

TEST(CsvTest, EmptyCellReportsFileLineAndColumn) {
  std::string message = parse_error_of("a,b,c\n1,2,3\n4,,6\n");
  EXPECT_NE(message.find("data.csv:3:2"), std::string::npos) << message;
  EXPECT_NE(message.find("empty"), std::string::npos) << message;
  message = parse_error_of("a,b,c\n1,2,  \n");
  EXPECT_NE(message.find("data.csv:2:3"), std::string::npos) << message;
  // An empty column name in the header.
  message = parse_error_of("a,,c\n1,2,3\n");
  EXPECT_NE(message.find("data.csv:1:2"), std::string::npos) << message;
}

TEST(CsvTest, NonNumericCellReportsFileLineAndColumn) {
  for (const std::string cell : {"abc", "1.2.3", "1x", "0x10", "--1", "++1", "+", "1e", "1,5"}) {
    SCOPED_TRACE("cell '" + cell + "'");
    // "1,5" would split into two cells with ','; it is one (bad) cell with ';'.
    CsvFormat format;
    format.delimiter = cell == "1,5" ? ';' : ',';
    const std::string d(1, format.delimiter);
    const std::string message = parse_error_of(
        "u" + d + "v" + d + "w\n1" + d + "2" + d + "3\n\n4" + d + "5" + d + cell + "\n", format);
    EXPECT_NE(message.find("data.csv:4:3"), std::string::npos) << message;
  }
}

TEST(CsvTest, RejectsASignAfterTheLeadingPlus) {
  // "+-1" is not a number; skipping the '+' before from_chars must not turn it into -1.
  const std::string message = parse_error_of("a,b\n1,+-1\n");
  EXPECT_NE(message.find("data.csv:2:2"), std::string::npos) << message;
}

TEST(CsvTest, NonFiniteCellsReportFileLineAndColumn) {
  for (const std::string cell :
       {"nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "1e400", "-1e999"}) {
    SCOPED_TRACE("cell '" + cell + "'");
    const std::string message = parse_error_of("a,b\n1,2\n" + cell + ",3\n");
    EXPECT_NE(message.find("data.csv:3:1"), std::string::npos) << message;
  }
}

TEST(CsvTest, KeepTextKeepsWordsAndMissingCellsWithTheirPositions) {
  CsvFormat format;
  format.keep_text = true;
  const CsvTable table = parse_text("sex,length\n\nM,0.5\n\"F\",NA\n I ,\n2,nan\n", format);
  ASSERT_EQ(table.values.cols(), 4);
  EXPECT_EQ(table.row_lines, (std::vector<std::int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(table.values(1, 0), 0.5);
  EXPECT_EQ(table.values(0, 3), 2.0);
  EXPECT_TRUE(std::isnan(table.values(0, 0)));
  std::vector<std::string> texts;
  for (const CsvTextCell& cell : table.text_cells) {
    texts.push_back(std::to_string(cell.row) + ":" + std::to_string(cell.column) + ":" + cell.text);
  }
  EXPECT_EQ(texts,
            (std::vector<std::string>{"0:0:M", "1:0:F", "1:1:NA", "2:0:I", "2:1:", "3:1:nan"}));
  EXPECT_EQ(csv_cell_position(table, 2, 1), "data.csv:5:2");
  // Without keep_text the same file is refused at its first word, as before.
  EXPECT_NE(parse_error_of("sex,length\n\nM,0.5\n").find("data.csv:3:1"), std::string::npos);
}

TEST(CsvTest, MissingValueMarkersAreThoseOfRPandasAndSpreadsheets) {
  for (const std::string text :
       {"", "NA", "N/A", "n/a", "#N/A", "NaN", "nan", "-nan", "NULL", "null", "None", "<NA>"}) {
    EXPECT_TRUE(is_missing_text(text)) << text;
  }
  for (const std::string text : {"0", "na", "inf", "M", "missing", " NA"}) {
    EXPECT_FALSE(is_missing_text(text)) << text;
  }
}

TEST(CsvTest, WriteCsvWritesLabelsOfCodesQuotedWhereReadingNeedsIt) {
  Matrix samples(2, 3);
  samples << 0, 1, 2, 0.5, 1.5, 2.5;
  std::ostringstream text;
  write_csv(text, {"kind", "v"}, samples, {{"a", "b,c", "say \"hi\""}, {}});
  EXPECT_EQ(text.str(), "kind,v\na,0.5\n\"b,c\",1.5\n\"say \"\"hi\"\"\",2.5\n");
  CsvFormat format;
  format.keep_text = true;
  std::istringstream back(text.str());
  const CsvTable table = parse_csv(back, "written", format);
  ASSERT_EQ(table.text_cells.size(), 3u);
  EXPECT_EQ(table.text_cells[1].text, "b,c");
  EXPECT_EQ(table.text_cells[2].text, "say \"hi\"");
}

TEST(CsvTest, EmptyAndHeaderOnlyFilesAreErrors) {
  EXPECT_NE(parse_error_of("").find("data.csv"), std::string::npos);
  EXPECT_NE(parse_error_of("\n \r\n\t\n").find("data.csv"), std::string::npos);
  EXPECT_NE(parse_error_of("a,b\n").find("data.csv"), std::string::npos);
  EXPECT_NE(parse_error_of("a,b\r\n\r\n\r\n").find("data.csv"), std::string::npos);
  CsvFormat format;
  format.has_header = false;
  EXPECT_NE(parse_error_of("", format).find("data.csv"), std::string::npos);
}

TEST(CsvTest, ReadCsvFromFileNamesThePathInErrors) {
  const std::string path = test::temporary_path("table.csv");
  {
    std::ofstream file(path);
    file << "a,b\r\n1,2\r\n3,oops\r\n";
  }
  const std::string message = message_of<ParseError>([&] { read_csv(path); });
  EXPECT_NE(message.find(path + ":3:2"), std::string::npos) << message;
  {
    std::ofstream file(path);
    file << "a,b\n1,2\n3,4\n";
  }
  const CsvTable table = read_csv(path);
  EXPECT_EQ(table.source, path);
  EXPECT_EQ(table.values(1, 1), 4.0);
  std::filesystem::remove(path);
}

TEST(CsvTest, UnreadablePathIsIoError) {
  const std::string missing = test::temporary_path("missing_dir") + "/nothing.csv";
  const std::string message = message_of<IoError>([&] { read_csv(missing); });
  EXPECT_NE(message.find(missing), std::string::npos) << message;
  // A directory opens but cannot be read.
  EXPECT_THROW(read_csv(std::filesystem::temp_directory_path().string()), IoError);
}

/// Writes `text` to a fresh file in a fresh directory of its own and returns the file's path.
std::string write_file_in(const std::string& directory, const std::string& name,
                          const std::string& text) {
  std::filesystem::create_directories(directory);
  const std::string path = directory + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// One process reads shard files as their concatenation, in the sorted order of their names (the
// MPI tests, tests/mpi/test_csv_shards.cpp, cut them over ranks).
TEST(CsvTest, ShardFilesOfAPatternReadAsOneTableInNameOrder) {
  const std::string directory = test::temporary_path("shards");
  write_file_in(directory, "part-10.csv", "a,b\n5,6\n");
  write_file_in(directory, "part-02.csv", "\na,b\r\n3,4\n\n");
  write_file_in(directory, "part-01.csv", "a,b\n1,2\n");
  const std::vector<std::string> paths = expand_path_pattern(directory + "/part-*.csv");
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths.back(), directory + "/part-10.csv");
  const CsvShard shard = read_csv_shards(paths, local_communicator());
  EXPECT_EQ(shard.first_row, 0);
  EXPECT_EQ(shard.total_rows, 3);
  EXPECT_EQ(shard.table.column_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(shard.table.values, parse_text("a,b\n1,2\n3,4\n5,6\n").values);
  // A bad cell is reported at its line in its own file.
  write_file_in(directory, "part-02.csv", "\na,b\r\n3,x\n");
  EXPECT_EQ(message_of<ParseError>([&] { read_csv_shards(paths, local_communicator()); }),
            directory + "/part-02.csv:3:2: not a number 'x' in column 'b'");
  write_file_in(directory, "part-02.csv", "a,c\n3,4\n");
  EXPECT_EQ(message_of<ParseError>([&] { read_csv_shards(paths, local_communicator()); }),
            directory + "/part-02.csv:1:1: the header differs from the header of " + paths[0]);
  EXPECT_NE(message_of<IoError>([&] {
              expand_path_pattern(directory + "/none-*.csv");
            }).find("no file matches"),
            std::string::npos);
  // A path without a wildcard, or a file whose name has one, is itself.
  const std::string bracketed = write_file_in(directory, "odd[1].csv", "a\n1\n2\n");
  EXPECT_EQ(expand_path_pattern(bracketed), std::vector<std::string>{bracketed});
  std::filesystem::remove_all(directory);
}

TEST(CsvTest, OneShardOnOneProcessIsTheFileAsReadCsvReadsIt) {
  std::ostringstream text;
  text << "\xEF\xBB\xBFx, \"y,z\"\r\n";
  for (int i = 0; i < 50; ++i) text << i << "," << 0.5 * i << (i % 3 ? "\n" : "\r\n\n");
  const std::string path = write_file_in(test::temporary_path("one_shard"), "data.csv", text.str());
  const CsvShard shard = read_csv_shards({path}, local_communicator());
  const CsvTable whole = read_csv(path);
  EXPECT_EQ(shard.table.column_names, whole.column_names);
  EXPECT_EQ(shard.table.values, whole.values);
  EXPECT_EQ(shard.table.source, path);
  const std::string header_only = write_file_in(test::temporary_path("empty"), "e.csv", "x,y\n");
  EXPECT_EQ(message_of<ParseError>([&] { read_csv_shards({header_only}, local_communicator()); }),
            header_only + ": the file has a header but no data rows");
}

std::vector<double> awkward_doubles() {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.1,
                                1.0 / 3.0,
                                2.0 / 3.0,
                                1e-300,
                                -1e-300,
                                1e300,
                                5e-324,  // the smallest subnormal
                                2.2250738585072014e-308,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::epsilon(),
                                123456789012345678.0,
                                9007199254740993.0,
                                0.30000000000000004};
  // Random bit patterns cover every exponent and mantissa shape.
  std::mt19937_64 engine(20240611);
  while (values.size() < 400) {
    const std::uint64_t bits = engine();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    if (std::isfinite(value)) values.push_back(value);
  }
  return values;
}

TEST(CsvTest, WriteCsvRoundTripsDoublesExactly) {
  const std::vector<double> values = awkward_doubles();
  const Index n = static_cast<Index>(values.size()) / 2;
  Matrix samples(2, n);
  for (Index j = 0; j < n; ++j) {
    samples(0, j) = values[static_cast<std::size_t>(2 * j)];
    samples(1, j) = values[static_cast<std::size_t>(2 * j + 1)];
  }
  std::stringstream text;
  write_csv(text, {"first", "second"}, samples);
  const CsvTable table = parse_csv(text, "written");
  EXPECT_EQ(table.column_names, (std::vector<std::string>{"first", "second"}));
  ASSERT_EQ(table.values.rows(), 2);
  ASSERT_EQ(table.values.cols(), n);
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < 2; ++i) {
      EXPECT_EQ(table.values(i, j), samples(i, j)) << "sample " << j << " dimension " << i;
    }
  }
}

TEST(CsvTest, FormatNumberIsShortestRoundTrip) {
  for (const double value : awkward_doubles()) {
    const std::string text = format_number(value);
    SCOPED_TRACE(text);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value);
    // Brute force: the shortest scientific text with the fewest digits that reads back exactly
    // (%.*e with increasing precision). "Shortest" counts characters, so a fixed form such as
    // "2577404796788113408" may beat it, but nothing may be longer.
    std::string shortest;
    for (int precision = 1; precision <= 17; ++precision) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, value);
      if (std::strtod(buffer, nullptr) == value) {
        shortest = buffer;
        break;
      }
    }
    ASSERT_FALSE(shortest.empty());
    EXPECT_LE(text.size(), shortest.size()) << "printf gives " << shortest;
  }
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(1e-300), "1e-300");
  EXPECT_EQ(std::strtod(format_number(-0.0).c_str(), nullptr), 0.0);
}

TEST(CsvTest, WriteCsvLayout) {
  Matrix samples(2, 3);
  samples << 1, 2, 3, 0.5, -4, 1e20;
  std::ostringstream text;
  write_csv(text, {"a", "b"}, samples);
  EXPECT_EQ(text.str(), "a,b\n1,0.5\n2,-4\n3,1e+20\n");
}

}  // namespace
}  // namespace cdens

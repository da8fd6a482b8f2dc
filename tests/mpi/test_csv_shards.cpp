// Reading a CSV data set on K ranks: the ranks' rows, put together in rank order, are the rows
// read_csv reads from the whole file, and a bad row is reported on every rank with the line
// number it has in its file.

#include <gtest/gtest.h>

#include <sstream>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::gather_columns;
using testing_mpi::shared_temporary_path;
using testing_mpi::world;
using testing_mpi::write_shared_file;

/// A file with what the reader must get right at any cut: a quoted header after blank lines,
/// CRLF endings, blank lines and spaces between rows, lines of different lengths, no final
/// newline.
std::string awkward_csv(int rows) {
  std::ostringstream text;
  text << "\n\n\"a\",b, \"c,d\"\r\n";
  for (int i = 0; i < rows; ++i) {
    text << i << ", " << (i % 7 == 0 ? "-1.5e-3" : std::to_string(i * 1000003 % 97)) << ","
         << 0.25 * i << (i % 5 == 0 ? "\r\n" : "\n");
    if (i % 11 == 3) text << "\n  \n";
  }
  text << "99,98,97";
  return text.str();
}

void expect_whole_table(const CsvShard& shard, const CsvTable& whole) {
  EXPECT_EQ(shard.table.column_names, whole.column_names);
  EXPECT_EQ(shard.total_rows, whole.values.cols());
  EXPECT_EQ(world().sum_counts_below(shard.table.values.cols()), shard.first_row);
  const Matrix gathered = gather_columns(shard.table.values);
  ASSERT_EQ(gathered.cols(), whole.values.cols());
  EXPECT_EQ(gathered, whole.values);
}

TEST(CsvShards, RanksReadTheRowsOfOneFileInOrder) {
  // Sizes from fewer rows than ranks to many rows per rank.
  for (const int rows : {0, 2, 5, 40, 333}) {
    const std::string path = shared_temporary_path("one_file.csv");
    write_shared_file(path, awkward_csv(rows));
    expect_whole_table(read_csv_shards({path}, world()), read_csv(path));
  }
}

TEST(CsvShards, RanksReadTheRowsOfShardFilesInFileOrder) {
  std::vector<std::string> paths;
  std::string concatenated;
  for (int part = 0; part < 3; ++part) {
    paths.push_back(shared_temporary_path("part-" + std::to_string(part) + ".csv"));
    // Parts of different sizes, one of them empty apart from its header.
    const std::string text = awkward_csv(part == 1 ? 0 : 17 * (part + 1));
    write_shared_file(paths.back(), text);
    concatenated += (part == 0 ? text : text.substr(text.find("\r\n") + 2)) + "\n";
  }
  std::istringstream whole(concatenated);
  expect_whole_table(read_csv_shards(paths, world()), parse_csv(whole, "whole"));
  EXPECT_EQ(expand_path_pattern(shared_temporary_path("part-*.csv")), paths);
}

TEST(CsvShards, FilesWithoutHeaderAreNumberedColumns) {
  const std::string path = shared_temporary_path("no_header.csv");
  write_shared_file(path, "1,2\n3,4\n\n5,6\n7,8\n9,10\n");
  CsvFormat format;
  format.has_header = false;
  expect_whole_table(read_csv_shards({path}, world(), format), read_csv(path, format));
}

TEST(CsvShards, EveryRankReportsTheBadRowWithItsLineInTheFile) {
  // Line 1 is the header; the bad cell is on line 2 + 250, near the end, in column 2.
  std::string text = "x,y\n";
  for (int i = 0; i < 300; ++i) text += std::to_string(i) + (i == 250 ? ",oops\n" : ",1\n");
  const std::string path = shared_temporary_path("bad_row.csv");
  write_shared_file(path, text);
  const std::string expected = path + ":252:2: not a number 'oops' in column 'y'";
  EXPECT_EQ(test::message_of<ParseError>([&] { read_csv_shards({path}, world()); }), expected);
  // The same message as the single-process reader's.
  EXPECT_EQ(test::message_of<ParseError>([&] { read_csv(path); }), expected);
}

TEST(CsvShards, ShardFilesMustShareTheirHeader) {
  const std::string first = shared_temporary_path("same-0.csv");
  const std::string second = shared_temporary_path("same-1.csv");
  write_shared_file(first, "x,y\n1,2\n");
  write_shared_file(second, "\nx,z\n3,4\n");
  EXPECT_EQ(test::message_of<ParseError>([&] {
              read_csv_shards({first, second}, world());
            }),
            second + ":2:1: the header differs from the header of " + first);
}

}  // namespace
}  // namespace cdens

#pragma once
// Numeric CSV files: reading with precise error positions, choosing columns, writing.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// A numeric table read from CSV. `values` holds one sample per column (d × n), so row r of the
/// file is column r of `values` and CSV column c is row c.
struct CsvTable {
  std::vector<std::string> column_names;  ///< header names, or "0", "1", … without a header
  Matrix values;                          ///< column_names.size() × number of data rows
  std::string source;                     ///< file name used in error messages
};

/// How a CSV file is laid out.
struct CsvFormat {
  bool has_header = true;  ///< the first non-empty line names the columns
  char delimiter = ',';
};

/// Reads a numeric CSV file. Blank lines are skipped, CRLF endings and spaces around cells are
/// accepted. Throws IoError if the file cannot be read and ParseError — naming the file, the
/// 1-based line and column — for a ragged row, an empty or non-numeric cell, or NaN/infinity.
CsvTable read_csv(const std::string& path, const CsvFormat& format = {});

/// As read_csv, from a stream; `source` names it in error messages.
CsvTable parse_csv(std::istream& input, const std::string& source, const CsvFormat& format = {});

/// One process's rows of a data set that many processes read together (read_csv_shards).
struct CsvShard {
  CsvTable table;           ///< this process's rows (maybe none) under the header's names
  std::int64_t first_row;   ///< the index of table's first row among the rows of every file
  std::int64_t total_rows;  ///< the rows of every process
};

/// Reads this process's part of a data set of one CSV file or of several files with the same
/// header (`paths`, in order; the rows are numbered across them in that order). The data bytes
/// after the headers are cut into communicator.size() ranges of equal length; each rank reads the
/// lines that start in its range, so it holds only its own rows. Errors are read_csv's, naming the
/// file and its line (counted from the file's start, whichever rank reads it) and column, and
/// every rank throws the one of the lowest rank that met one (agree_on_errors). A header that
/// differs from the first file's is a ParseError. Every rank must call it.
CsvShard read_csv_shards(const std::vector<std::string>& paths, const Communicator& communicator,
                         const CsvFormat& format = {});

/// The files a shell pattern names (`part-*.csv`), in sorted order (glob(3)); a path without
/// a wildcard (*, ?, [), or that names a file, is returned as it is. IoError when no file
/// matches.
std::vector<std::string> expand_path_pattern(const std::string& pattern);

/// Resolves column specifications to column positions. A specification equal to a column name
/// selects that column; otherwise a non-negative integer selects by 0-based position. Throws
/// InvalidArgument naming an unknown column or an empty list.
std::vector<Index> resolve_columns(const CsvTable& table, const std::vector<std::string>& specs);

/// The chosen columns as a d × n matrix of samples.
Matrix select_columns(const CsvTable& table, const std::vector<Index>& columns);

/// Writes a header and one CSV row per column of `samples` (names.size() × n), numbers in the
/// shortest form that reads back to the same double.
void write_csv(std::ostream& output, const std::vector<std::string>& names,
               const MatrixView& samples);

/// Shortest decimal text that parses back to exactly `value`.
std::string format_number(double value);

}  // namespace cdens

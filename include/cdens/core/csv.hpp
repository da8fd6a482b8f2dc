#pragma once
// Numeric CSV files: reading with precise error positions, choosing columns, writing.

#include <iosfwd>
#include <string>
#include <vector>

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

#pragma once
// Numeric CSV files: reading with precise error positions, choosing columns, writing.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// A cell that holds no finite number, kept as text by a reader with CsvFormat::keep_text.
struct CsvTextCell {
  Index row;         ///< 0-based data row (column of CsvTable::values)
  Index column;      ///< 0-based CSV column
  std::string text;  ///< the cell, trimmed and unquoted
};

/// A numeric table read from CSV. `values` holds one sample per column (d × n), so row r of the
/// file is column r of `values` and CSV column c is row c.
struct CsvTable {
  std::vector<std::string> column_names;  ///< header names, or "0", "1", … without a header
  Matrix values;                          ///< column_names.size() × number of data rows
  std::string source;                     ///< file name used in error messages
  /// With CsvFormat::keep_text: the cells that are no finite number (NaN in `values`), in file
  /// order, and the 1-based file line of every data row. Empty otherwise.
  std::vector<CsvTextCell> text_cells;
  std::vector<std::int64_t> row_lines;
};

/// How a CSV file is laid out.
struct CsvFormat {
  bool has_header = true;  ///< the first non-empty line names the columns
  char delimiter = ',';
  /// Keep a cell that is no finite number (a word, an empty or missing cell, NaN) as text in
  /// CsvTable::text_cells instead of refusing it, for a caller that reads labels or missing
  /// values and refuses the rest itself (naming the cell by csv_cell_position). One file only:
  /// read_csv_shards refuses such cells as before.
  bool keep_text = false;
};

/// What keeps a cell's text from being a finite number ("not a number 'x'", "empty cell",
/// "non-finite value 'inf'", …), or nothing when it is one, then left in `value`.
std::optional<std::string> number_problem(std::string_view cell, double& value);

/// Whether a cell's text marks a missing value: empty, NA, N/A, n/a, #N/A, NaN, nan, -nan,
/// NULL, null, None, <NA> (the markers R, pandas and spreadsheets write).
bool is_missing_text(std::string_view text);

/// The one labelling rule of both front ends (the command's CSV cells, Python's values): the label
/// a cell of a discrete column of words stands for. Its text trimmed of spaces and tabs, or, where
/// that text is a finite number (number_problem), the number's shortest text (format_number):
/// "1.0", " 1 " and "1e0" are the label "1", "2.50" is "2.5"; words stay as written ("NA" and the
/// other missing markers are missing values before they are labels).
std::string label_of_text(std::string_view text);

/// "file:line:column" of a cell of a table read with keep_text ("file: data row r, column c"
/// without the lines), 1-based as in the reader's messages.
std::string csv_cell_position(const CsvTable& table, Index row, Index column);

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
/// shortest form that reads back to the same double. Where `labels` has a non-empty list for a
/// row of `samples`, its values are codes written as their labels (labels[code], quoted when it
/// holds the delimiter or a quote).
void write_csv(std::ostream& output, const std::vector<std::string>& names,
               const MatrixView& samples, const std::vector<std::vector<std::string>>& labels = {});

/// Shortest decimal text that parses back to exactly `value`.
std::string format_number(double value);

}  // namespace cdens

// libFuzzer harness of the CSV reader: any bytes must end in a table or in a cdens::Error
// (ParseError with line and column, IoError); anything else — a crash, a sanitizer report, an
// exception of another type — is a bug. The table must hold finite numbers in the shape its
// header promises; with keep_text, NaN exactly at the cells kept as text, each at a row and
// column of the table, and a line for every row.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cdens/core/types.hpp"
#include "io/csv.hpp"

namespace {

/// Whether `table` is what parse_csv promises with `format`.
bool well_formed(const cdens::CsvTable& table, const cdens::CsvFormat& format) {
  if (static_cast<std::size_t>(table.values.rows()) != table.column_names.size() ||
      table.values.cols() < 1) {
    return false;
  }
  if (!format.keep_text) return table.values.allFinite() && table.text_cells.empty();
  if (static_cast<cdens::Index>(table.row_lines.size()) != table.values.cols()) return false;
  cdens::Index non_finite = 0;
  for (cdens::Index j = 0; j < table.values.cols(); ++j) {
    for (cdens::Index i = 0; i < table.values.rows(); ++i) {
      non_finite += std::isfinite(table.values(i, j)) ? 0 : 1;
    }
  }
  for (const cdens::CsvTextCell& cell : table.text_cells) {
    if (cell.row < 0 || cell.row >= table.values.cols() || cell.column < 0 ||
        cell.column >= table.values.rows() || !std::isnan(table.values(cell.column, cell.row))) {
      return false;
    }
  }
  return non_finite == static_cast<cdens::Index>(table.text_cells.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool header : {true, false}) {
    for (const bool keep_text : {false, true}) {
      std::istringstream input(text);
      cdens::CsvFormat format;
      format.has_header = header;
      format.keep_text = keep_text;
      try {
        if (!well_formed(cdens::parse_csv(input, "fuzz.csv", format), format)) std::abort();
      } catch (const cdens::Error&) {
      }
    }
  }
  return 0;
}

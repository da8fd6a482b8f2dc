// libFuzzer harness of the CSV reader: any bytes must end in a table or in a cdens::Error
// (ParseError with line and column, IoError); anything else — a crash, a sanitizer report, an
// exception of another type — is a bug. The table must hold finite numbers in the shape its
// header promises.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cdens/core/csv.hpp"
#include "cdens/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool header : {true, false}) {
    std::istringstream input(text);
    cdens::CsvFormat format;
    format.has_header = header;
    try {
      const cdens::CsvTable table = cdens::parse_csv(input, "fuzz.csv", format);
      if (static_cast<std::size_t>(table.values.rows()) != table.column_names.size() ||
          table.values.cols() < 1 || !table.values.allFinite()) {
        std::abort();
      }
    } catch (const cdens::Error&) {
    }
  }
  return 0;
}

#include "cdens/core/csv.hpp"

#include <charconv>
#include <cmath>
#include <deque>
#include <fstream>
#include <sstream>

#include "cdens/core/error.hpp"
#include "core/input_file.hpp"

namespace cdens {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

[[noreturn]] void fail(const std::string& source, std::size_t line, std::size_t column,
                       const std::string& problem) {
  std::ostringstream message;
  message << source << ":" << line << ":" << column << ": " << problem;
  throw ParseError(message.str());
}

/// The fields of one line, reused from line to line so that reading a row allocates nothing.
/// A field may be quoted ("a,b" or "say ""hi"""), as spreadsheets write headers: the quotes go
/// and a doubled quote inside is one quote; such a field's text is kept in `unquoted` (a deque:
/// its strings stay where they are while more are added). An unterminated quote is a
/// ParseError at its line and field.
struct LineFields {
  std::vector<std::string_view> fields;
  std::deque<std::string> unquoted;

  void split(std::string_view line, char delimiter, const std::string& source,
             std::size_t line_number) {
    fields.clear();
    unquoted.clear();
    std::size_t start = 0;
    while (true) {
      std::size_t end = line.find(delimiter, start);
      std::string_view raw =
          trim(line.substr(start, end == std::string_view::npos ? end : end - start));
      if (!raw.empty() && raw.front() == '"') {
        std::string& cell = unquoted.emplace_back();
        std::size_t position = line.find('"', start) + 1;
        while (true) {
          const std::size_t quote = line.find('"', position);
          if (quote == std::string_view::npos) {
            fail(source, line_number, fields.size() + 1, "unterminated quote");
          }
          cell.append(line.substr(position, quote - position));
          if (quote + 1 < line.size() && line[quote + 1] == '"') {
            cell += '"';
            position = quote + 2;
            continue;
          }
          position = quote + 1;
          break;
        }
        end = line.find(delimiter, position);
        if (!trim(line.substr(position, end == std::string_view::npos ? end : end - position))
                 .empty()) {
          fail(source, line_number, fields.size() + 1, "text after the closing quote");
        }
        fields.emplace_back(cell);
      } else {
        fields.push_back(raw);
      }
      if (end == std::string_view::npos) return;
      start = end + 1;
    }
  }
};

/// The number in a cell; a ParseError naming the line, the column and its name otherwise (the
/// message is built only then: a good cell costs one from_chars).
double parse_cell(std::string_view cell, const std::string& source, std::size_t line,
                  std::size_t column, const std::string& column_name) {
  const auto problem = [&](const std::string& what) {
    fail(source, line, column, what + " in column '" + column_name + "'");
  };
  if (cell.empty()) problem("empty cell");
  // from_chars does not accept a leading '+'; one is fine, "+-1" or "+" alone is not.
  std::string_view digits = cell.front() == '+' ? cell.substr(1) : cell;
  if (cell.front() == '+' && (digits.empty() || digits.front() == '+' || digits.front() == '-')) {
    problem("not a number '" + std::string(cell) + "'");
  }
  double value = 0.0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (status != std::errc() || end != digits.data() + digits.size()) {
    if (status == std::errc::result_out_of_range) {
      problem("number out of range '" + std::string(cell) + "'");
    }
    problem("not a number '" + std::string(cell) + "'");
  }
  if (!std::isfinite(value)) problem("non-finite value '" + std::string(cell) + "'");
  return value;
}

}  // namespace

CsvTable parse_csv(std::istream& input, const std::string& source, const CsvFormat& format) {
  CsvTable table;
  table.source = source;
  std::vector<double> values;  // row-major while reading
  std::size_t n_rows = 0;
  std::size_t line_number = 0;
  std::size_t width = 0;
  bool have_width = false;
  std::string line;
  LineFields line_fields;
  while (std::getline(input, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A UTF-8 byte-order mark (spreadsheets write one) is no part of the first column's name.
    constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
    if (line_number == 1 && std::string_view(line).substr(0, 3) == kByteOrderMark) {
      line.erase(0, kByteOrderMark.size());
    }
    if (trim(line).empty()) continue;
    line_fields.split(line, format.delimiter, source, line_number);
    const std::vector<std::string_view>& cells = line_fields.fields;
    if (!have_width) {
      width = cells.size();
      have_width = true;
      if (format.has_header) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
          if (cells[c].empty()) fail(source, line_number, c + 1, "empty column name in header");
          for (std::size_t earlier = 0; earlier < c; ++earlier) {
            if (cells[earlier] == cells[c]) {
              fail(source, line_number, c + 1,
                   "column name '" + std::string(cells[c]) + "' repeats column " +
                       std::to_string(earlier + 1));
            }
          }
          table.column_names.emplace_back(cells[c]);
        }
        continue;
      }
      for (std::size_t c = 0; c < width; ++c) table.column_names.push_back(std::to_string(c));
    }
    if (cells.size() != width) {
      std::ostringstream problem;
      problem << "row has " << cells.size() << " fields but "
              << (format.has_header ? "the header" : "the first row") << " has " << width;
      fail(source, line_number, std::min(cells.size(), width) + 1, problem.str());
    }
    for (std::size_t c = 0; c < width; ++c) {
      values.push_back(parse_cell(cells[c], source, line_number, c + 1, table.column_names[c]));
    }
    ++n_rows;
  }
  if (input.bad()) throw IoError("cannot read " + source);
  if (!have_width) throw ParseError(source + ": the file is empty");
  if (n_rows == 0) throw ParseError(source + ": the file has a header but no data rows");
  table.values = Eigen::Map<const Matrix>(values.data(), static_cast<Index>(width),
                                          static_cast<Index>(n_rows));
  return table;
}

CsvTable read_csv(const std::string& path, const CsvFormat& format) {
  std::ifstream file = open_input_file(path);
  return parse_csv(file, path, format);
}

std::vector<Index> resolve_columns(const CsvTable& table, const std::vector<std::string>& specs) {
  if (specs.empty()) throw InvalidArgument("no columns were chosen from " + table.source);
  std::vector<Index> columns;
  for (const auto& spec : specs) {
    Index found = -1;
    for (std::size_t c = 0; c < table.column_names.size(); ++c) {
      if (table.column_names[c] == spec) found = static_cast<Index>(c);
    }
    if (found < 0 && !spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos) {
      std::size_t position = 0;
      const auto [end, status] = std::from_chars(spec.data(), spec.data() + spec.size(), position);
      if (status == std::errc() && position < table.column_names.size()) {
        found = static_cast<Index>(position);
      }
    }
    if (found < 0) {
      std::string known;
      for (const auto& name : table.column_names) known += (known.empty() ? "" : ", ") + name;
      throw InvalidArgument("unknown column '" + spec + "' in " + table.source +
                            " (columns: " + known + ")");
    }
    columns.push_back(found);
  }
  return columns;
}

Matrix select_columns(const CsvTable& table, const std::vector<Index>& columns) {
  Matrix selected(static_cast<Index>(columns.size()), table.values.cols());
  for (std::size_t r = 0; r < columns.size(); ++r) {
    selected.row(static_cast<Index>(r)) = table.values.row(columns[r]);
  }
  return selected;
}

std::string format_number(double value) {
  char buffer[32];
  const auto [end, status] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, status == std::errc() ? end : buffer);
}

void write_csv(std::ostream& output, const std::vector<std::string>& names,
               const MatrixView& samples) {
  for (std::size_t c = 0; c < names.size(); ++c) output << (c ? "," : "") << names[c];
  output << '\n';
  for (Index j = 0; j < samples.cols(); ++j) {
    for (Index i = 0; i < samples.rows(); ++i) {
      output << (i ? "," : "") << format_number(samples(i, j));
    }
    output << '\n';
  }
}

}  // namespace cdens

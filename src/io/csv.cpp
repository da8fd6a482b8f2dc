#include "io/csv.hpp"

#include <glob.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "cdens/core/types.hpp"
#include "io/input_file.hpp"

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

  /// `header`: the line names the columns, and a problem is the header's (its field k), not a
  /// data cell's.
  void split(std::string_view line, char delimiter, const std::string& source,
             std::size_t line_number, bool header) {
    fields.clear();
    unquoted.clear();
    const auto refuse = [&](const std::string& problem) {
      const std::size_t field = fields.size() + 1;
      fail(source, line_number, field,
           header ? problem + " in the header (the line of column names), its field " +
                        std::to_string(field)
                  : problem);
    };
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
            refuse("unterminated quote");
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
          refuse("text after the closing quote");
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

}  // namespace

std::optional<std::string> number_problem(std::string_view cell, double& value) {
  if (cell.empty()) return "empty cell";
  // from_chars does not accept a leading '+'; one is fine, "+-1" or "+" alone is not.
  std::string_view digits = cell.front() == '+' ? cell.substr(1) : cell;
  if (cell.front() == '+' && (digits.empty() || digits.front() == '+' || digits.front() == '-')) {
    return "not a number '" + std::string(cell) + "'";
  }
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (status != std::errc() || end != digits.data() + digits.size()) {
    if (status == std::errc::result_out_of_range) {
      return "number out of range '" + std::string(cell) + "'";
    }
    return "not a number '" + std::string(cell) + "'";
  }
  if (!std::isfinite(value)) return "non-finite value '" + std::string(cell) + "'";
  return std::nullopt;
}

namespace {

/// The number in a cell; a ParseError naming the line, the column and its name otherwise (the
/// message is built only then: a good cell costs one from_chars).
double parse_cell(std::string_view cell, const std::string& source, std::size_t line,
                  std::size_t column, const std::string& column_name) {
  double value = 0.0;
  if (const auto problem = number_problem(cell, value)) {
    fail(source, line, column, *problem + " in column '" + column_name + "'");
  }
  return value;
}

/// A UTF-8 byte-order mark (spreadsheets write one) is no part of the first column's name.
void strip_line_ending_and_mark(std::string& line, std::size_t line_number) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (line_number == 1 && std::string_view(line).substr(0, 3) == kByteOrderMark) {
    line.erase(0, kByteOrderMark.size());
  }
}

/// The rows of a numeric CSV file, line by line: the header (or the first row's width), then
/// every data row checked against it and parsed.
class CsvRowReader {
 public:
  CsvRowReader(std::string source, const CsvFormat& format)
      : source_(std::move(source)), format_(format) {}

  /// A reader of data rows only, whose columns are already known (a shard past the header).
  CsvRowReader(std::string source, const CsvFormat& format, std::vector<std::string> names)
      : source_(std::move(source)), format_(format), names_(std::move(names)), have_width_(true) {}

  /// Reads `line` (without its newline), line `line_number` of the source (1-based).
  void add(std::string& line, std::size_t line_number) {
    strip_line_ending_and_mark(line, line_number);
    if (trim(line).empty()) return;
    line_fields_.split(line, format_.delimiter, source_, line_number,
                       !have_width_ && format_.has_header);
    const std::vector<std::string_view>& cells = line_fields_.fields;
    if (!have_width_) {
      have_width_ = true;
      names_ = header_names(cells, line_number);
      if (format_.has_header) return;
    }
    const std::size_t width = names_.size();
    if (cells.size() != width) {
      std::ostringstream problem;
      problem << "row has " << cells.size() << " fields but "
              << (format_.has_header ? "the header" : "the first row") << " has " << width;
      // The first row against the header: the header may be the line at fault (a name missing,
      // another delimiter), so it is named with its fields.
      if (format_.has_header && rows_ == 0) {
        problem << " (";
        for (std::size_t c = 0; c < width; ++c) problem << (c ? ", '" : "'") << names_[c] << "'";
        problem << "): the header or this row lacks or has an extra field (delimiter '"
                << format_.delimiter << "')";
      }
      fail(source_, line_number, std::min(cells.size(), width) + 1, problem.str());
    }
    for (std::size_t c = 0; c < width; ++c) {
      double value = 0.0;
      if (format_.keep_text && number_problem(cells[c], value)) {
        text_cells_.push_back(
            {static_cast<Index>(rows_), static_cast<Index>(c), std::string(cells[c])});
        value = std::numeric_limits<double>::quiet_NaN();
      } else if (!format_.keep_text) {
        value = parse_cell(cells[c], source_, line_number, c + 1, names_[c]);
      }
      values_.push_back(value);
    }
    if (format_.keep_text) row_lines_.push_back(static_cast<std::int64_t>(line_number));
    ++rows_;
  }

  /// The column names of a header line, or "0", "1", … for a file without one.
  std::vector<std::string> header_names(const std::vector<std::string_view>& cells,
                                        std::size_t line_number) const {
    std::vector<std::string> names;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (!format_.has_header) {
        names.push_back(std::to_string(c));
        continue;
      }
      if (cells[c].empty()) fail(source_, line_number, c + 1, "empty column name in header");
      for (std::size_t earlier = 0; earlier < c; ++earlier) {
        if (cells[earlier] == cells[c]) {
          fail(source_, line_number, c + 1,
               "column name '" + std::string(cells[c]) + "' repeats column " +
                   std::to_string(earlier + 1));
        }
      }
      names.emplace_back(cells[c]);
    }
    return names;
  }

  /// The rows that follow come from `source` (the next shard file).
  void continue_in(std::string source) { source_ = std::move(source); }

  bool have_width() const { return have_width_; }
  std::size_t rows() const { return rows_; }

  /// The table of the rows read (names × rows).
  CsvTable table() const {
    CsvTable table;
    table.source = source_;
    table.column_names = names_;
    table.values = Eigen::Map<const Matrix>(values_.data(), static_cast<Index>(names_.size()),
                                            static_cast<Index>(rows_));
    table.text_cells = text_cells_;
    table.row_lines = row_lines_;
    return table;
  }

 private:
  std::string source_;
  CsvFormat format_;
  std::vector<std::string> names_;
  bool have_width_ = false;
  std::vector<double> values_;  // row-major while reading
  std::size_t rows_ = 0;
  std::vector<CsvTextCell> text_cells_;
  std::vector<std::int64_t> row_lines_;
  LineFields line_fields_;
};

}  // namespace

CsvTable parse_csv(std::istream& input, const std::string& source, const CsvFormat& format) {
  CsvRowReader reader(source, format);
  std::size_t line_number = 0;
  std::string line;
  while (std::getline(input, line)) reader.add(line, ++line_number);
  if (input.bad()) throw IoError("cannot read " + source);
  if (!reader.have_width()) throw ParseError(source + ": the file is empty");
  if (reader.rows() == 0) throw ParseError(source + ": the file has a header but no data rows");
  return reader.table();
}

CsvTable read_csv(const std::string& path, const CsvFormat& format) {
  std::ifstream file = open_input_file(path);
  return parse_csv(file, path, format);
}

namespace {

/// A file of a data set split across processes: where its data lines start, past its header.
struct DataFile {
  std::string path;
  std::uint64_t data_begin = 0;       ///< the byte after the header line (0 without a header)
  std::uint64_t size = 0;             ///< bytes
  std::size_t lines_before_data = 0;  ///< lines up to the header's, blank lines included
  std::vector<std::string> names;     ///< the header's names, or "0", "1", … without one
};

/// Reads the lines of `path` up to its header (or, without one, its first row, for the width).
/// ParseError for a file without any line that is not blank.
DataFile locate_data(const std::string& path, const CsvFormat& format) {
  DataFile file;
  file.path = path;
  std::ifstream input = open_input_file(path);
  file.size = std::filesystem::file_size(path);
  CsvRowReader reader(path, format);
  std::string line;
  std::uint64_t position = 0;
  std::size_t line_number = 0;
  while (std::getline(input, line)) {
    ++line_number;
    position = std::min(position + line.size() + 1, file.size);
    strip_line_ending_and_mark(line, line_number);
    if (trim(line).empty()) continue;
    LineFields fields;
    fields.split(line, format.delimiter, path, line_number, format.has_header);
    file.names = reader.header_names(fields.fields, line_number);
    if (format.has_header) {
      file.data_begin = position;
      file.lines_before_data = line_number;
    }
    return file;
  }
  if (input.bad()) throw IoError("cannot read " + path);
  throw ParseError(path + ": the file is empty");
}

/// The bytes [begin, end) of a file's data whose lines one rank reads: the lines that start in
/// it (the last may run past end).
struct Segment {
  std::size_t file;
  std::uint64_t begin;
  std::uint64_t end;
};

/// Rank `rank`'s part of the data bytes of `files`, taken as one sequence in file order and cut
/// into `ranks` ranges of equal length.
std::vector<Segment> segments_of_rank(const std::vector<DataFile>& files, int rank, int ranks) {
  std::uint64_t total = 0;
  for (const DataFile& file : files) total += file.size - file.data_begin;
  // ⌊total · r / ranks⌋ without overflow: total = q · ranks + m.
  const auto cut = [&](std::uint64_t r) {
    return total / static_cast<std::uint64_t>(ranks) * r +
           total % static_cast<std::uint64_t>(ranks) * r / static_cast<std::uint64_t>(ranks);
  };
  const std::uint64_t first = cut(static_cast<std::uint64_t>(rank));
  const std::uint64_t last = cut(static_cast<std::uint64_t>(rank) + 1);
  std::vector<Segment> segments;
  std::uint64_t offset = 0;  // where the file's data start in the sequence
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::uint64_t length = files[f].size - files[f].data_begin;
    const std::uint64_t begin = std::max(first, offset);
    const std::uint64_t end = std::min(last, offset + length);
    if (begin < end) {
      segments.push_back(
          {f, files[f].data_begin + begin - offset, files[f].data_begin + end - offset});
    }
    offset += length;
  }
  return segments;
}

/// Opens `file` at the first line that starts in [segment.begin, ∞): a line starts at the data's
/// beginning or after a newline. Returns the stream and that line's byte position.
std::pair<std::ifstream, std::uint64_t> open_at_first_line(const DataFile& file,
                                                           const Segment& segment) {
  std::ifstream input = open_input_file(file.path);
  std::uint64_t position = segment.begin;
  if (segment.begin > file.data_begin) {
    input.seekg(static_cast<std::streamoff>(segment.begin - 1));
    if (input.get() != '\n') {
      std::string rest;
      std::getline(input, rest);
      position += rest.size() + 1;
    }
  } else {
    input.seekg(static_cast<std::streamoff>(segment.begin));
  }
  return {std::move(input), position};
}

/// Lines that start in the segment.
std::size_t count_lines(const DataFile& file, const Segment& segment) {
  auto [input, position] = open_at_first_line(file, segment);
  std::size_t lines = 0;
  std::string line;
  while (position < segment.end && std::getline(input, line)) {
    ++lines;
    position += line.size() + 1;
  }
  if (input.bad()) throw IoError("cannot read " + file.path);
  return lines;
}

/// Reads the rows of the segment, whose first line is line `first_line` of its file.
void read_segment(const DataFile& file, const Segment& segment, std::size_t first_line,
                  CsvRowReader& reader) {
  auto [input, position] = open_at_first_line(file, segment);
  reader.continue_in(file.path);
  std::size_t line_number = first_line;
  std::string line;
  while (position < segment.end && std::getline(input, line)) {
    position += line.size() + 1;
    reader.add(line, line_number++);
  }
  if (input.bad()) throw IoError("cannot read " + file.path);
}

}  // namespace

std::vector<std::string> expand_path_pattern(const std::string& pattern) {
  std::error_code error;
  if (pattern.find_first_of("*?[") == std::string::npos ||
      std::filesystem::is_regular_file(pattern, error)) {
    return {pattern};
  }
  glob_t matches{};
  const int status = glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> paths(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
  globfree(&matches);
  if (status == GLOB_NOMATCH) throw IoError("no file matches " + pattern);
  if (status != 0) throw IoError("cannot list the files of " + pattern);
  return paths;  // glob sorts them
}

CsvShard read_csv_shards(const std::vector<std::string>& paths, const Communicator& communicator,
                         const CsvFormat& requested_format) {
  // Text cells are one file's (their rows are numbered in it): shards refuse them.
  CsvFormat format = requested_format;
  format.keep_text = false;
  if (paths.empty()) throw InvalidArgument("no data files were given");
  std::vector<DataFile> files;
  std::vector<Segment> segments;
  std::vector<double> line_counts;  // (rank, file, lines) of each of this rank's segments
  agree_on_errors(communicator, [&] {
    for (const std::string& path : paths) {
      files.push_back(locate_data(path, format));
      const DataFile& file = files.back();
      if (format.has_header && file.names != files.front().names) {
        fail(path, file.lines_before_data, 1,
             "the header differs from the header of " + files.front().path);
      }
    }
    segments = segments_of_rank(files, communicator.rank(), communicator.size());
    for (const Segment& segment : segments) {
      line_counts.insert(
          line_counts.end(),
          {static_cast<double>(communicator.rank()), static_cast<double>(segment.file),
           static_cast<double>(count_lines(files[segment.file], segment))});
    }
  });
  // A segment's first line number: its file's lines up to the data, and the lines of that file
  // that lower ranks read.
  const std::vector<double> all_counts = communicator.gather_all(line_counts);
  CsvRowReader reader(paths.front(), format, files.front().names);
  agree_on_errors(communicator, [&] {
    for (const Segment& segment : segments) {
      std::size_t first_line = files[segment.file].lines_before_data + 1;
      for (std::size_t e = 0; e + 2 < all_counts.size(); e += 3) {
        if (all_counts[e] < communicator.rank() &&
            all_counts[e + 1] == static_cast<double>(segment.file)) {
          first_line += static_cast<std::size_t>(all_counts[e + 2]);
        }
      }
      read_segment(files[segment.file], segment, first_line, reader);
    }
  });
  CsvShard shard;
  shard.table = reader.table();
  // Messages about the data set as a whole (an unknown column) name its first and last file.
  shard.table.source = paths.size() == 1 ? paths.front() : paths.front() + " … " + paths.back();
  const auto rows = static_cast<std::int64_t>(reader.rows());
  shard.first_row = communicator.sum_counts_below(rows);
  shard.total_rows = communicator.sum_counts(rows);
  if (shard.total_rows == 0) {
    throw ParseError(shard.table.source + ": the " +
                     (paths.size() == 1 ? "file has" : "files have") +
                     " a header but no data rows");
  }
  return shard;
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

namespace {

/// `text` as a CSV cell: as it is, or quoted (quotes doubled) where it holds a delimiter, a
/// quote or surrounding spaces that reading would trim.
std::string quoted_cell(const std::string& text) {
  const bool plain = text.find_first_of(",\"\r\n") == std::string::npos &&
                     (text.empty() || (text.front() != ' ' && text.back() != ' '));
  if (plain) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

bool is_missing_text(std::string_view text) {
  static constexpr std::string_view kMissing[] = {"",    "NA",   "N/A",  "n/a",  "#N/A", "NaN",
                                                  "nan", "-nan", "NULL", "null", "None", "<NA>"};
  return std::find(std::begin(kMissing), std::end(kMissing), text) != std::end(kMissing);
}

std::string label_of_text(std::string_view text) {
  const std::string_view trimmed = trim(text);
  double value = 0.0;
  if (!number_problem(trimmed, value)) return format_number(value);
  return std::string(trimmed);
}

std::string csv_cell_position(const CsvTable& table, Index row, Index column) {
  if (row < static_cast<Index>(table.row_lines.size())) {
    return table.source + ":" + std::to_string(table.row_lines[static_cast<std::size_t>(row)]) +
           ":" + std::to_string(column + 1);
  }
  return table.source + ": data row " + std::to_string(row + 1) + ", column " +
         std::to_string(column + 1);
}

std::string format_number(double value) {
  char buffer[32];
  const auto [end, status] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, status == std::errc() ? end : buffer);
}

void write_csv(std::ostream& output, const std::vector<std::string>& names,
               const MatrixView& samples, const std::vector<std::vector<std::string>>& labels) {
  for (std::size_t c = 0; c < names.size(); ++c) output << (c ? "," : "") << names[c];
  output << '\n';
  for (Index j = 0; j < samples.cols(); ++j) {
    for (Index i = 0; i < samples.rows(); ++i) {
      output << (i ? "," : "");
      const auto* row_labels =
          i < static_cast<Index>(labels.size()) ? &labels[static_cast<std::size_t>(i)] : nullptr;
      const double code = samples(i, j);
      if (row_labels != nullptr && code >= 0.0 && code < static_cast<double>(row_labels->size()) &&
          code == std::floor(code)) {
        output << quoted_cell((*row_labels)[static_cast<std::size_t>(code)]);
      } else {
        output << format_number(code);
      }
    }
    output << '\n';
  }
}

}  // namespace cdens

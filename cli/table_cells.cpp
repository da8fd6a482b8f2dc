#include "table_cells.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <unordered_map>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "io/text.hpp"

namespace cdens::cli {
namespace {

/// Doubles hold every integer up to this magnitude, and skip some beyond it.
constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53

/// The label a cell of a labelled column stands for (label_of_text, the rule Python follows too):
/// its text, or its number's shortest text.
std::string label_of_cell(const CsvTable& table, Index row, Index column,
                          const std::vector<const CsvTextCell*>& text_of_rows) {
  const CsvTextCell* text = text_of_rows[static_cast<std::size_t>(row)];
  return text != nullptr ? label_of_text(text->text) : format_number(table.values(column, row));
}

/// The text cell of every row of `column` (null for a number), missing cells left out.
std::vector<const CsvTextCell*> words_of_column(const CsvTable& table, Index column) {
  std::vector<const CsvTextCell*> words(static_cast<std::size_t>(table.values.cols()), nullptr);
  for (const CsvTextCell& cell : table.text_cells) {
    if (cell.column == column && !is_missing_text(cell.text)) {
      words[static_cast<std::size_t>(cell.row)] = &cell;
    }
  }
  return words;
}

/// Whether row `row` of `column` is a missing cell.
std::vector<bool> missing_rows(const CsvTable& table, const std::vector<Index>& columns) {
  std::vector<bool> missing(static_cast<std::size_t>(table.values.cols()), false);
  for (const CsvTextCell& cell : table.text_cells) {
    if (is_missing_text(cell.text) &&
        std::find(columns.begin(), columns.end(), cell.column) != columns.end()) {
      missing[static_cast<std::size_t>(cell.row)] = true;
    }
  }
  return missing;
}

}  // namespace

CLI::Option* add_missing_option(CLI::App& command, bool& drop) {
  return command
      .add_option_function<std::string>(
          "--missing", [&drop](const std::string& policy) { drop = policy == "drop"; },
          "Rows with a missing value (empty, NA, N/A, NaN, NULL, None, …) in a column used: "
          "error (default, naming the cell) or drop (left out, with a warning that counts them)")
      ->check(CLI::IsMember({"error", "drop"}));
}

void drop_rows_with_missing(CsvTable& table, const std::vector<Index>& columns) {
  const std::vector<bool> missing = missing_rows(table, columns);
  std::vector<Index> kept;
  std::vector<Index> dropped;
  for (Index j = 0; j < table.values.cols(); ++j) {
    (missing[static_cast<std::size_t>(j)] ? dropped : kept).push_back(j);
  }
  if (dropped.empty()) return;
  if (kept.empty()) {
    throw InvalidArgument(table.source + ": every row has a missing value in a column used");
  }
  std::vector<Index> dropped_lines;
  for (const Index j : dropped) {
    dropped_lines.push_back(static_cast<Index>(table.row_lines[static_cast<std::size_t>(j)]) - 1);
  }
  std::cerr << "cdens: warning: " << table.source << ": left out " << dropped.size() << " of "
            << table.values.cols() << " rows with a missing value (line"
            << (dropped.size() > 1 ? "s " : " ") << describe_rows(dropped_lines) << ")\n";
  // The rows kept, renumbered; text cells and lines follow them.
  std::vector<Index> new_row(static_cast<std::size_t>(table.values.cols()), -1);
  Matrix values(table.values.rows(), static_cast<Index>(kept.size()));
  std::vector<std::int64_t> lines;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    values.col(static_cast<Index>(k)) = table.values.col(kept[k]);
    lines.push_back(table.row_lines[static_cast<std::size_t>(kept[k])]);
    new_row[static_cast<std::size_t>(kept[k])] = static_cast<Index>(k);
  }
  std::vector<CsvTextCell> cells;
  for (CsvTextCell& cell : table.text_cells) {
    if (new_row[static_cast<std::size_t>(cell.row)] < 0) continue;
    cell.row = new_row[static_cast<std::size_t>(cell.row)];
    cells.push_back(std::move(cell));
  }
  table.values = std::move(values);
  table.row_lines = std::move(lines);
  table.text_cells = std::move(cells);
}

ColumnLabels labels_of_column(const CsvTable& table, Index column, bool ordered,
                              const ColumnLabels& stated) {
  const std::vector<const CsvTextCell*> words = words_of_column(table, column);
  const auto first_word = std::find_if(words.begin(), words.end(),
                                       [](const CsvTextCell* cell) { return cell != nullptr; });
  const std::string& name = table.column_names[static_cast<std::size_t>(column)];
  if (first_word == words.end() && stated.empty()) return {};
  if (stated.empty() && ordered) {
    throw InvalidArgument("ordered column '" + name + "' holds words ('" + (*first_word)->text +
                          "' at " + csv_cell_position(table, (*first_word)->row, column) +
                          "): state their order with --levels " + name +
                          "=FIRST,SECOND,… (or declare it --discrete)");
  }
  if (!stated.empty() && ordered) return stated;
  const std::vector<bool> missing = missing_rows(table, {column});
  std::set<std::string> distinct;
  for (Index j = 0; j < table.values.cols(); ++j) {
    if (!missing[static_cast<std::size_t>(j)])
      distinct.insert(label_of_cell(table, j, column, words));
  }
  if (stated.empty()) return ColumnLabels(distinct.begin(), distinct.end());
  // An unordered column's labels are its levels: a stated label the data do not hold has no
  // place in its kernel (an ordered one keeps its place between its neighbours).
  ColumnLabels held;
  for (const std::string& label : stated) {
    if (distinct.count(label) != 0) held.push_back(label);
  }
  return held;
}

void code_labels(CsvTable& table, Index column, const ColumnLabels& labels,
                 bool unknown_is_outside) {
  const std::vector<const CsvTextCell*> words = words_of_column(table, column);
  const std::vector<bool> missing = missing_rows(table, {column});
  const std::string& name = table.column_names[static_cast<std::size_t>(column)];
  std::unordered_map<std::string, Index> codes;
  for (std::size_t k = 0; k < labels.size(); ++k) codes.emplace(labels[k], static_cast<Index>(k));
  for (Index j = 0; j < table.values.cols(); ++j) {
    if (missing[static_cast<std::size_t>(j)]) continue;
    const std::string label = label_of_cell(table, j, column, words);
    const auto found = codes.find(label);
    if (found == codes.end() && !unknown_is_outside) {
      throw ParseError(csv_cell_position(table, j, column) + ": label '" + label + "' of column '" +
                       name + "' is not one of its levels (" + join(labels, ",") + ")");
    }
    table.values(column, j) = static_cast<double>(
        found == codes.end() ? static_cast<Index>(labels.size()) : found->second);
  }
  // Its words are codes now; its missing cells stay for drop_rows_with_missing to see.
  table.text_cells.erase(std::remove_if(table.text_cells.begin(), table.text_cells.end(),
                                        [&](const CsvTextCell& cell) {
                                          return cell.column == column &&
                                                 !is_missing_text(cell.text);
                                        }),
                         table.text_cells.end());
}

void code_model_labels(CsvTable& table, const ConditionalModel& model) {
  for (const auto& [name, labels] : model.labels) {
    const auto found = std::find(table.column_names.begin(), table.column_names.end(), name);
    if (found == table.column_names.end()) continue;
    const bool is_output =
        std::find(model.y_names.begin(), model.y_names.end(), name) != model.y_names.end();
    code_labels(table, static_cast<Index>(found - table.column_names.begin()), labels, is_output);
  }
}

void drop_rows_with_missing_if(bool drop, CsvTable& table,
                               const std::vector<std::vector<std::string>>& column_lists) {
  if (!drop) return;
  std::vector<Index> columns;
  for (const auto& list : column_lists) {
    if (list.empty()) continue;
    for (const Index column : resolve_columns(table, list)) columns.push_back(column);
  }
  drop_rows_with_missing(table, columns);
}

std::string decimal_comma_advice(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) return {};
  std::string pointed = text;
  pointed[comma] = '.';
  double value = 0.0;
  if (number_problem(pointed, value) || comma == 0 || comma + 1 == text.size()) return {};
  return ": it looks like a number with a decimal comma; write it with a decimal point (" +
         pointed + "), converting the file (a comma in a cell also needs the cell quoted)";
}

std::string text_cell_problem(const CsvTable& table, const CsvTextCell& cell,
                              const std::string& column_description) {
  double value = 0.0;
  return csv_cell_position(table, cell.row, cell.column) + ": " +
         number_problem(cell.text, value).value_or("text") + " in " + column_description;
}

void refuse_text_cells(const CsvTable& table, const std::vector<Index>& columns,
                       const WordAdvice& word_advice) {
  for (const CsvTextCell& cell : table.text_cells) {
    if (std::find(columns.begin(), columns.end(), cell.column) == columns.end()) continue;
    const std::string& name = table.column_names[static_cast<std::size_t>(cell.column)];
    const std::string problem = text_cell_problem(table, cell, "column '" + name + "'");
    if (is_missing_text(cell.text)) {
      throw ParseError(problem + ", a missing value (--missing drop leaves out the rows with one)");
    }
    if (const std::string comma = decimal_comma_advice(cell.text); !comma.empty()) {
      throw ParseError(problem + comma);
    }
    // inf, 1e999: numbers, but none a fit or a query can use.
    double value = 0.0;
    const std::string kind = number_problem(cell.text, value).value_or("");
    if (kind.rfind("non-finite", 0) == 0 || kind.rfind("number out of range", 0) == 0) {
      throw ParseError(problem + ": every value must be a finite number");
    }
    throw ParseError(problem + (word_advice ? word_advice(name)
                                            : ": the model reads this column as numbers (a "
                                              "column of labels is declared discrete when the "
                                              "model is fitted)"));
  }
}

void refuse_inexact_levels(const CsvTable& table, Index column) {
  for (Index j = 0; j < table.values.cols(); ++j) {
    const double value = table.values(column, j);
    if (std::abs(value) >= kExactIntegerLimit) {
      throw ParseError(csv_cell_position(table, j, column) + ": column '" +
                       table.column_names[static_cast<std::size_t>(column)] +
                       "' is declared discrete but holds " + format_number(value) +
                       ", at or beyond 2^53, where doubles skip integers and distinct levels "
                       "would merge: recode it (as ranks, or as words)");
    }
  }
}

std::vector<ColumnLabels> labels_of_names(const std::vector<std::string>& names,
                                          const std::map<std::string, ColumnLabels>& labels) {
  std::vector<ColumnLabels> result;
  for (const std::string& name : names) {
    const auto found = labels.find(name);
    result.push_back(found == labels.end() ? ColumnLabels{} : found->second);
  }
  return result;
}

}  // namespace cdens::cli

#pragma once
// Reading a CSV file and choosing its columns by name or 0-based position, as every command that
// takes data does.

#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "io/csv.hpp"
#include "table_cells.hpp"

namespace cdens::cli {

/// Reads a CSV file whose first line names the columns unless `no_header`, keeping the cells
/// that hold no number as text (labels, missing values: table_cells.hpp).
CsvTable load_table(const std::string& path, bool no_header);

/// Columns chosen from a table together with their names in the table.
struct ColumnSelection {
  std::vector<std::string> names;
  Matrix values;  ///< names.size() × number of rows
};

/// The columns named (or numbered, 0-based) by `specs`; InvalidArgument for an unknown column,
/// ParseError at a cell of them that holds no number (refuse_text_cells, a word told
/// `word_advice`).
ColumnSelection choose_columns(const CsvTable& table, const std::vector<std::string>& specs,
                               const WordAdvice& word_advice = {});

/// The columns of a comma-separated option such as --x, or `fallback` (usually the model's
/// variable names) when the option was not given.
ColumnSelection choose_columns(const CsvTable& table, const std::string& option_text,
                               const std::string& option_name,
                               const std::vector<std::string>& fallback);

/// The column specifications that choose_columns with the same arguments takes.
std::vector<std::string> column_specs(const std::string& option_text,
                                      const std::string& option_name,
                                      const std::vector<std::string>& fallback);

/// Warns once on standard error, naming `model_path`, where columns chosen for a model's
/// variables are named otherwise than the variables they are read as (x and y swapped by
/// --x y --y x, say): "column 'y' read as x, column 'x' read as y". `chosen` and `variables`
/// give the names group by group: the x columns and the y columns (a density model's columns).
/// No error: a user may rename columns on purpose. A table without a header names no column
/// and is not checked, nor is a variable of a model fitted on unnamed arrays (named x0, x1, …
/// and y0, … by its place: any column may be it).
void warn_renamed_columns(const std::string& model_path, bool no_header,
                          const std::vector<std::vector<std::string>>& chosen,
                          const std::vector<std::vector<std::string>>& variables);

/// InvalidArgument if a column is chosen both as an x and as a y column.
void require_disjoint(const ColumnSelection& x, const ColumnSelection& y);

/// Whether every one of `names` is a column name of the table (no positional fallback).
bool has_named_columns(const CsvTable& table, const std::vector<std::string>& names);

/// The data rows (1-based, the header not counted) of pairs given by 0-based index, for people
/// to read: "7, 12, 30", the first ten of many followed by how many more.
std::string describe_rows(const std::vector<Index>& pairs);

/// Warns once on standard error, naming `source` (a file, or "--x-values"), where some query rows
/// x (user's units) of `model` lie outside the inputs it was fitted on (support.hpp's
/// extrapolation_warning), and which: "cdens: warning: data.csv: 3 of 1000 query rows lie outside
/// the inputs the model was fitted on (…); their answers extrapolate (data rows 4, 9, 12)".
/// `row_noun` names a row ("data row", "point").
void warn_of_extrapolation(const std::string& source, const ConditionalModel& model,
                           const MatrixView& x, const std::string& row_noun = "data row");

/// The pairs (0-based columns of y) whose value of a discrete output is none of the levels the
/// model was fitted on: the model gives them probability 0 (log-density −∞).
std::vector<Index> pairs_outside_levels(const ConditionalMixture& model, const MatrixView& y);

}  // namespace cdens::cli

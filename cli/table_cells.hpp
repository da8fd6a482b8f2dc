#pragma once
// The cells of a CSV table that hold no number (CsvFormat::keep_text): labels of discrete
// columns, coded 0, 1, … for the fit and named again in the outputs, and missing values, left
// out with --missing drop. Every other such cell is refused by choose_columns, at its position.

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cdens/model_file.hpp"
#include "io/csv.hpp"

namespace cdens::cli {

/// Adds --missing error|drop to `command` (every command that reads a data file takes it);
/// `drop` becomes true for "drop".
CLI::Option* add_missing_option(CLI::App& command, bool& drop);

/// Leaves out the rows of `table` with a missing cell (is_missing_text) in any of `columns`
/// and says on standard error how many, naming their lines (the first ten). InvalidArgument
/// when no row is left.
void drop_rows_with_missing(CsvTable& table, const std::vector<Index>& columns);

/// The labels of a declared discrete column that holds words (a cell that is neither a number
/// nor missing; its numbers then are labels as well, in their shortest text): `stated` in its
/// order when given (--levels; a label outside it is a ParseError at its cell; an unordered
/// column keeps those its cells hold, its levels), else sorted,
/// which makes the model independent of the order of the rows. Empty for a column of numbers
/// only, which keeps its values as levels. InvalidArgument for words in an `ordered` column
/// without stated levels: no rule orders words as the user means.
ColumnLabels labels_of_column(const CsvTable& table, Index column, bool ordered,
                              const ColumnLabels& stated);

/// Replaces the non-missing cells of `column` by the codes of their labels (label k → k). A
/// label not in `labels` becomes code labels.size(), no level of the model, where
/// `unknown_is_outside` (an output: probability 0, as any value outside its levels), and is a
/// ParseError at its cell otherwise (an input: the kernel has no place for it).
void code_labels(CsvTable& table, Index column, const ColumnLabels& labels,
                 bool unknown_is_outside);

/// Codes the columns of `table` that carry `model`'s labels (its inputs and outputs by name).
void code_model_labels(CsvTable& table, const ConditionalModel& model);

/// With `drop`, drop_rows_with_missing over the columns of every list of `column_lists` (the
/// specifications of --x, --y, …, by name or position).
void drop_rows_with_missing_if(bool drop, CsvTable& table,
                               const std::vector<std::vector<std::string>>& column_lists);

/// What a word in a column read as numbers is told to do, from the column's name (": if it
/// holds labels, declare it discrete (--discrete NAME)"); empty: the command reads a model's
/// column, which the model reads as numbers.
using WordAdvice = std::function<std::string(const std::string& name)>;

/// ParseError at the first cell of `columns` that holds no number: a missing value (saying
/// that --missing drop leaves such rows out), a number with a decimal comma (saying so), a
/// non-finite or out-of-range number, or a word (with `word_advice`).
void refuse_text_cells(const CsvTable& table, const std::vector<Index>& columns,
                       const WordAdvice& word_advice = {});

/// "file:line:column: PROBLEM in COLUMN_DESCRIPTION" of a text cell (number_problem's words).
std::string text_cell_problem(const CsvTable& table, const CsvTextCell& cell,
                              const std::string& column_description);

/// ": it looks like a number with a decimal comma; …" for a cell such as 989,0056; empty
/// otherwise.
std::string decimal_comma_advice(const std::string& text);

/// ParseError at the first value of a declared discrete `column` whose magnitude reaches 2^53,
/// beyond which doubles skip integers and distinct levels would merge (Python's check).
void refuse_inexact_levels(const CsvTable& table, Index column);

/// The labels of `names` (their rows of an output table) where `labels` has them: one list per
/// name, empty for a column of numbers (write_csv's `labels`).
std::vector<ColumnLabels> labels_of_names(const std::vector<std::string>& names,
                                          const std::map<std::string, ColumnLabels>& labels);

}  // namespace cdens::cli

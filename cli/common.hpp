#pragma once
// What the subcommands of the `cdens` tool share: their registration, parsing of list and grid
// arguments, choosing CSV columns, loading models, reading query points, writing CSV tables and
// printing fit reports. Each helper exists once here so that every subcommand reads its input
// and reports its errors in the same way.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/csv.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/text.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

// Subcommands. Each adds itself to the application; its callback does the work and throws
// cdens::Error (or std::exception) on bad input, which main() turns into exit status 2.

void add_fit_command(CLI::App& app);
void add_score_command(CLI::App& app);
/// `cdens evaluate`: scores and calibration of one model (command_evaluate.cpp).
void add_evaluate_command(CLI::App& app);
/// `cdens compare`: several models on the same data (command_compare.cpp).
void add_compare_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_grid_command(CLI::App& app);
void add_sample_command(CLI::App& app);
void add_info_command(CLI::App& app);
/// `cdens methods [NAME]`: the registry of methods and one method's options.
void add_methods_command(CLI::App& app);
/// `cdens features`: the features a feature-selecting fit kept.
void add_features_command(CLI::App& app);
/// `cdens density fit|score|grid|sample|info`: unconditional density models.
void add_density_command(CLI::App& app);
/// The `fit` subcommand of `cdens density`.
void add_density_fit_command(CLI::App& density);
/// `cdens regress fit|predict`: PRESS regression.
void add_regress_command(CLI::App& app);
/// The `fit` and `predict` subcommands of `cdens regress`.
void add_regress_fit_command(CLI::App& regress);
void add_regress_predict_command(CLI::App& regress);

// Arguments.

/// One axis of a y grid, written START:STOP:COUNT: COUNT evenly spaced values from START to STOP,
/// both included.
struct GridAxis {
  double start;
  double stop;
  Index count;
};

/// Parses START:STOP:COUNT given as `flag` (--y-grid, --grid); InvalidArgument naming it unless
/// START < STOP and COUNT is an integer ≥ 2.
GridAxis parse_grid_axis(const std::string& spec, const std::string& flag);

/// Every point of the cartesian product of the axes' values as a d × (Π count) matrix, the first
/// axis varying fastest; InvalidArgument naming `flag` when the grid would not fit in memory
/// `per_point` times (the queries' results per grid point).
Matrix cartesian_grid(const std::vector<GridAxis>& axes, const std::string& flag, double per_point);

// Data.

/// Reads a numeric CSV file whose first line names the columns unless `no_header`.
CsvTable load_table(const std::string& path, bool no_header);

/// Columns chosen from a table together with their names in the table.
struct ColumnSelection {
  std::vector<std::string> names;
  Matrix values;  ///< names.size() × number of rows
};

/// The columns named (or numbered, 0-based) by `specs`; InvalidArgument for an unknown column.
ColumnSelection choose_columns(const CsvTable& table, const std::vector<std::string>& specs);

/// The columns of a comma-separated option such as --x, or `fallback` (usually the model's
/// variable names) when the option was not given.
ColumnSelection choose_columns(const CsvTable& table, const std::string& option_text,
                               const std::string& option_name,
                               const std::vector<std::string>& fallback);

/// InvalidArgument if a column is chosen both as an x and as a y column.
void require_disjoint(const ColumnSelection& x, const ColumnSelection& y);

/// Whether every one of `names` is a column name of the table (no positional fallback).
bool has_named_columns(const CsvTable& table, const std::vector<std::string>& names);

/// Rows held out for evaluation and rows left for fitting, each in file order.
struct HoldoutSplit {
  std::vector<Index> fit_rows;
  std::vector<Index> held_out_rows;
};

/// --holdout: the first round(fraction · n) entries of a seeded permutation are held out
/// (stream 1 of the seed, independent of the draws a fit makes from stream 0). InvalidArgument
/// unless both parts are non-empty.
HoldoutSplit split_for_holdout(Index n, double fraction, std::uint64_t seed);

// Models.

/// A model file's content and the format version it was written in.
struct ModelFile {
  ConditionalModel model;
  int format_version;
};

/// Reads and checks a model file: IoError, or ModelFormatError for anything that is not a model
/// this version of cdens can read.
ModelFile load_model_file(const std::string& path);

/// Reads and checks an unconditional density model file (IoError, ModelFormatError).
DensityModel load_density_model_file(const std::string& path);

/// --n of `sample` and `density sample`: InvalidArgument naming it unless it is at least 1 and
/// `n` draws of `numbers_per_draw` numbers each (draws and the table written from them) fit in
/// memory.
void require_draw_count(Index n, double numbers_per_draw);

/// Adds --seed: a non-negative integer (CLI11 alone would wrap "-1" around to 2^64 − 1).
void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description);

/// Where the x points of `grid` and `sample` come from.
struct InputPointOptions {
  std::string values;  ///< --x-values: "1,2,3" for d_x = 1, "1,2;3,4" (points split by ';')
  std::string file;    ///< --x-file: a CSV file holding the model's x columns by name
};

/// Adds --x-values and --x-file to a subcommand.
void add_input_point_options(CLI::App& command, InputPointOptions& options);

/// The x points (d_x × m) given by exactly one of --x-values and --x-file.
Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options);

// Output.

/// Writes a CSV table (one column of `columns` per row of the file) to standard output when
/// `path` is empty, else atomically to `path`. Refuses to write a non-finite number.
void write_table(const std::string& path, const std::vector<std::string>& names,
                 const MatrixView& columns);

/// `names` separated by `separator`.
std::string join(const std::vector<std::string>& names, const std::string& separator);

/// A number for people to read: integers in full, anything else to 6 significant digits.
std::string format_short(double value);

/// The variable names and dimensions of a model, one `key: value` per line.
void print_variables(std::ostream& out, const std::vector<std::string>& x_names,
                     const std::vector<std::string>& y_names);

/// What the model's scores are, "scores: log density" (every output continuous), "log
/// probability mass" (every output discrete) or a product of both, and for discrete outputs the
/// kind of every output ("output_kinds: continuous,ordered").
void print_output_kinds(std::ostream& out, const ConditionalModel& model);

/// The cross-validation table. Two hyper-parameters are shown as a matrix (rows: the first,
/// columns: the second), anything else as one line per candidate; `*` marks the chosen one.
/// A line naming the loss follows.
void print_cv_table(std::ostream& out, const CvTable& table);

/// "selected_features: a, b" (by name) when the model's fit selected features; nothing else.
void print_feature_selection(std::ostream& out, const ConditionalModel& model);

/// Chosen hyper-parameters, statistics, fit time and warnings of a fit, then its CV table.
void print_fit_report(std::ostream& out, const FitReport& report);

/// After a successful fit: writes the model to `path` atomically when one was given (only now is
/// an existing file replaced) and says in `out` where it went, or that it was not saved.
void save_fitted_model(std::ostream& out, const std::string& path, const ConditionalModel& model);
void save_fitted_model(std::ostream& out, const std::string& path, const DensityModel& model);

}  // namespace cdens::cli

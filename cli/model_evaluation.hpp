#pragma once
// What `cdens evaluate` and `cdens compare` share: their options, evaluating a model file of
// either shape on a CSV table, printing the per-score table, and drawing a figure through the
// Python package.

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "io/csv.hpp"
#include "model_files.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

struct EvaluationArguments {
  std::string x_columns;  // empty: the model's x names
  std::string y_columns;  // empty: the model's y names
  bool no_header = false;
  std::string pinball_levels = "0.1,0.5,0.9";
  std::string interval_levels = "0.5,0.9";
  std::string interval_levels_flag = "--interval-levels";  // as typed: --levels is deprecated
  Index bins = 10;
  Index draws = 1000;
  std::uint64_t seed = 0;
  std::string scores;  // empty: every score that applies
  std::string plot_path;
  std::string json_path;
  bool drop_missing = false;  // --missing drop
  bool quiet = false;         // --quiet: no progress line
};

/// Adds --x, --y, --no-header, --pinball, --levels, --bins, --draws, --seed, --scores, --plot,
/// --json, --missing and --quiet.
void add_evaluation_options(CLI::App& command, EvaluationArguments& arguments);

/// The options of the evaluation library from the command's arguments.
EvaluationOptions evaluation_options(const EvaluationArguments& arguments);

/// A model file evaluated on a table.
struct EvaluatedModel {
  std::string description;           ///< "conditional p(y|x) by lscde" or "density p(x) by gmm"
  std::vector<std::string> y_names;  ///< the columns scored: y, or a density model's columns
  ModelEvaluation evaluation;
  bool density = false;  ///< a density model p(x), whose columns are no y
};

/// Checks --json and --plot before any work is done: each must name a file that can be created
/// in an existing directory, and --plot's interpreter ($CDENS_PYTHON, python3 by default) must
/// import cdens.plot and matplotlib (IoError naming the option otherwise).
void require_writable_reports(const EvaluationArguments& arguments);

/// Evaluates a model file read by load_model_file (conditional or density) on the table's
/// columns: the model's variables unless --x/--y name others (density models: --y names the
/// columns of x), reporting its slow stages to `progress`. A warning goes to standard error for
/// every pair left out because a score of it is not finite.
EvaluatedModel evaluate_model_file(const ModelFile& file, const CsvTable& table,
                                   const EvaluationArguments& arguments, Progress& progress);

/// With --missing drop, leaves out the rows of `table` with a missing value in a column that
/// any model of `files` reads, so that every model is scored on the same pairs.
void drop_rows_missing_for_models(CsvTable& table, const std::vector<ModelFile>& files,
                                  const EvaluationArguments& arguments);

/// "y: a,b" of a conditional model, "columns: a,b" of a density model (whose columns are no y).
std::string scored_columns_line(const EvaluatedModel& model);

/// "excluded: …" when an evaluation left pairs out, else nothing.
void print_exclusions(std::ostream& out, const std::vector<Index>& pairs, Index pairs_given);

/// A number of a report table: 4 significant digits.
std::string format_table_number(double value);

/// For a model with a discrete output, what y is and what its log-likelihood means, and with
/// `left_out` the scores that do not apply to it with why; nothing for a continuous y.
void print_discrete_outputs(std::ostream& out, const std::vector<std::string>& y_names,
                            const ModelEvaluation& evaluation, bool left_out);

/// One line per score: name, mean ± standard error.
void print_score_table(std::ostream& out, const ModelEvaluation& evaluation);

/// Writes `document` to --json atomically when given, and draws it to --plot when given, with
/// `python -m cdens.plot KIND JSON PNG` (the interpreter is $CDENS_PYTHON, python3 by default; it
/// needs the cdens package and matplotlib), saying in `out` where the figure went.
void write_report(std::ostream& out, const nlohmann::json& document, const std::string& kind,
                  const EvaluationArguments& arguments);

}  // namespace cdens::cli

#include "model_evaluation.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "columns.hpp"
#include "command_progress.hpp"
#include "io/json_io.hpp"
#include "io/text.hpp"
#include "model_files.hpp"
#include "output_files.hpp"
#include "seed_option.hpp"
#include "table_cells.hpp"

extern char** environ;

namespace cdens::cli {
namespace {

/// What a program run to its end said: its exit status (127 if it could not start, the cause
/// then in last_error_line) and the last non-empty line of its standard error.
struct ProgramResult {
  int status = 0;
  std::string last_error_line;
};

/// Runs `program arguments…` and waits for it, its standard error kept in a temporary file (a
/// traceback is read for its last line, the cause, instead of reaching the user's terminal).
ProgramResult run_program(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& argument : command) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  std::string log_path =
      (std::filesystem::temp_directory_path() / "cdens-plot-stderr-XXXXXX").string();
  const int log = mkstemp(log_path.data());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (log >= 0) posix_spawn_file_actions_adddup2(&actions, log, STDERR_FILENO);
  ProgramResult result;
  pid_t child = 0;
  const int spawned = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    result = {127, std::strerror(spawned)};
  } else {
    int status = 0;
    if (waitpid(child, &status, 0) < 0) {
      result.status = 127;
    } else {
      result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    }
  }
  if (log >= 0) {
    close(log);
    std::ifstream text(log_path);
    for (std::string line; std::getline(text, line);) {
      if (line.find_first_not_of(" \t\r") != std::string::npos) result.last_error_line = line;
    }
    std::remove(log_path.c_str());
  }
  return result;
}

/// Where the plotter failed, in one line: the cause it gave (a missing package, a file it could
/// not write, a report it could not read).
std::string plot_failure(const std::string& python, const ProgramResult& result) {
  const std::string hint =
      "set CDENS_PYTHON to a Python interpreter that has the cdens package and matplotlib";
  if (result.status == 127 && result.last_error_line.find("No module") == std::string::npos) {
    return "--plot: cannot run '" + python + "'" +
           (result.last_error_line.empty() ? "" : ": " + result.last_error_line) + "; " + hint;
  }
  std::string cause = result.last_error_line;
  const std::string prefix = "cdens.plot: error: ";
  if (cause.rfind(prefix, 0) == 0) cause = cause.substr(prefix.size());
  if (cause.empty()) cause = "exit status " + std::to_string(result.status);
  std::string message = "--plot: '" + python + " -m cdens.plot' failed: " + cause;
  if (cause.find("No module named") != std::string::npos) message += "; " + hint;
  return message;
}

/// The interpreter that draws --plot: $CDENS_PYTHON, python3 by default.
std::string plotting_python() {
  const char* configured = std::getenv("CDENS_PYTHON");
  return configured != nullptr && *configured ? configured : "python3";
}

/// Pairs left out of an evaluation, by data row, with the score that was not finite.
std::string describe_exclusions(const std::vector<ExcludedPair>& excluded) {
  constexpr std::size_t kShown = 5;
  std::string text;
  for (std::size_t i = 0; i < excluded.size() && i < kShown; ++i) {
    text += std::string(i == 0 ? "" : ", ") + std::to_string(excluded[i].pair + 1) + " (" +
            excluded[i].score + " " + format_number(excluded[i].value) + ")";
  }
  if (excluded.size() > kShown) {
    text += " and " + std::to_string(excluded.size() - kShown) + " more";
  }
  return text;
}

}  // namespace

void add_evaluation_options(CLI::App& command, EvaluationArguments& arguments) {
  command.add_option("--x", arguments.x_columns, "Input columns (default: the model's names)");
  command.add_option("--y", arguments.y_columns,
                     "Output columns (default: the model's names; a density model's columns)");
  command.add_flag("--no-header", arguments.no_header, "The CSV file has no header line");
  command
      .add_option("--pinball", arguments.pinball_levels,
                  "Levels of the pinball losses, in (0, 1) (one-dimensional y)")
      ->capture_default_str();
  command
      .add_option("--interval-levels", arguments.interval_levels,
                  "Levels of the central and highest-density intervals scored, in (0, 1)")
      ->capture_default_str();
  // The old spelling: fit's --levels states a discrete column's labels, so the intervals'
  // levels took a name of their own; the old one still works, with a warning.
  command.add_option_function<std::string>(
      "--levels",
      [&arguments](const std::string& value) {
        arguments.interval_levels = value;
        arguments.interval_levels_flag = "--levels";
        std::cerr << "cdens: warning: --levels of evaluate and compare is deprecated: use "
                     "--interval-levels (fit's --levels states a discrete column's labels)\n";
      },
      "Deprecated spelling of --interval-levels");
  command.add_option("--bins", arguments.bins, "Bins of the PIT and HPD histograms")
      ->capture_default_str();
  command
      .add_option("--draws", arguments.draws,
                  "Draws per pair for the energy score and the HPD values when d_y > 1 (even)")
      ->capture_default_str();
  add_seed_option(command, arguments.seed,
                  "Seed of those draws and of the randomised PIT and HPD values of a discrete y "
                  "(default 0)");
  command.add_option("--scores", arguments.scores,
                     "Scores to compute, of " + join(evaluation_score_names(), ",") +
                         " (central: central intervals and PIT; hpd: highest-density regions "
                         "and HPD values; default: every one that applies)");
  command.add_option("--plot", arguments.plot_path,
                     "Draw the figure to this PNG file (needs the cdens Python package)");
  command.add_option("--json", arguments.json_path,
                     "Write the whole report, per-pair values included, to this JSON file");
  add_missing_option(command, arguments.drop_missing);
  add_quiet_flag(command, arguments.quiet);
}

std::string format_table_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  return buffer;
}

EvaluationOptions evaluation_options(const EvaluationArguments& arguments) {
  EvaluationOptions options;
  options.pinball_levels = parse_number_list(arguments.pinball_levels, "--pinball");
  options.interval_levels =
      parse_number_list(arguments.interval_levels, arguments.interval_levels_flag);
  options.histogram_bins = arguments.bins;
  options.draws = arguments.draws;
  options.seed = arguments.seed;
  if (!arguments.scores.empty()) options.scores = split_list(arguments.scores, ',', "--scores");
  return options;
}

void require_writable_reports(const EvaluationArguments& arguments) {
  if (!arguments.json_path.empty()) require_writable_file(arguments.json_path, "--json");
  if (arguments.plot_path.empty()) return;
  require_writable_file(arguments.plot_path, "--plot");
  // The plotter is found before the evaluation runs, not after it.
  const std::string python = plotting_python();
  const ProgramResult result = run_program({python, "-c", "import cdens.plot, matplotlib"});
  if (result.status != 0) throw IoError(plot_failure(python, result));
}

void print_exclusions(std::ostream& out, const std::vector<Index>& pairs, Index pairs_given) {
  if (pairs.empty()) return;
  out << "excluded: " << pairs.size() << " of " << pairs_given
      << " pairs, with a score that is not finite (data row" << (pairs.size() > 1 ? "s " : " ")
      << describe_rows(pairs) << ")\n";
}

EvaluatedModel evaluate_model_file(const ModelFile& file, const CsvTable& table,
                                   const EvaluationArguments& arguments, Progress& progress) {
  const EvaluationOptions options = evaluation_options(arguments);
  const std::string& path = file.path;
  EvaluatedModel result;
  if (file.density) {
    const DensityModel& model = *file.density;
    if (!arguments.x_columns.empty()) {
      throw InvalidArgument(path + " is a density model p(x): it has no inputs for --x");
    }
    const ColumnSelection data = choose_columns(table, arguments.y_columns, "--y", model.names);
    warn_renamed_columns(path, arguments.no_header, {data.names}, {model.names});
    result = {"density p(x) by " + model.report.method, data.names,
              evaluate_density(model.mixture, data.values, options, progress), true};
  } else {
    const ConditionalModel& model = *file.conditional;
    // Each model codes the labels of its own variables (compare reads one table for several).
    std::optional<CsvTable> coded;
    if (!model.labels.empty()) code_model_labels(coded.emplace(table), model);
    const CsvTable& rows = coded ? *coded : table;
    const ColumnSelection x = choose_columns(rows, arguments.x_columns, "--x", model.x_names);
    const ColumnSelection y = choose_columns(rows, arguments.y_columns, "--y", model.y_names);
    require_disjoint(x, y);
    warn_renamed_columns(path, arguments.no_header, {x.names, y.names},
                         {model.x_names, model.y_names});
    warn_of_extrapolation(path + " on " + table.source, model, x.values);
    result = {"conditional p(y|x) by " + model.report.method, y.names,
              evaluate_model(model.mixture, x.values, y.values, options, progress)};
  }
  const ModelEvaluation& evaluation = result.evaluation;
  if (!evaluation.excluded.empty()) {
    std::cerr << "cdens: warning: " << path << " on " << table.source << ": "
              << evaluation.excluded.size() << " of " << evaluation.pairs_given
              << " pairs left out, with a score that is not finite: data row"
              << (evaluation.excluded.size() > 1 ? "s " : " ")
              << describe_exclusions(evaluation.excluded) << '\n';
  }
  return result;
}

std::string scored_columns_line(const EvaluatedModel& model) {
  return (model.density ? "columns: " : "y: ") + join(model.y_names, ",");
}

void drop_rows_missing_for_models(CsvTable& table, const std::vector<ModelFile>& files,
                                  const EvaluationArguments& arguments) {
  if (!arguments.drop_missing) return;
  std::vector<std::vector<std::string>> columns;
  for (const ModelFile& file : files) {
    if (file.density) {
      columns.push_back(column_specs(arguments.y_columns, "--y", file.density->names));
      continue;
    }
    columns.push_back(column_specs(arguments.x_columns, "--x", file.conditional->x_names));
    columns.push_back(column_specs(arguments.y_columns, "--y", file.conditional->y_names));
  }
  drop_rows_with_missing_if(true, table, columns);
}

void print_discrete_outputs(std::ostream& out, const std::vector<std::string>& y_names,
                            const ModelEvaluation& evaluation, bool left_out) {
  if (evaluation.output_atom) {
    const std::string atom = (y_names.empty() ? "y" : y_names.front()) + " = " +
                             format_table_number(*evaluation.output_atom);
    out << "atom: " << atom << "; log_likelihood is log P(" << atom
        << " | x) at it and a log-density elsewhere, the PIT and HPD values of the pairs at it "
           "are randomised over that probability\n";
  }
  const auto& kinds = evaluation.output_kinds;
  if (std::all_of(kinds.begin(), kinds.end(),
                  [](const std::string& kind) { return kind == "continuous"; })) {
    return;
  }
  out << "discrete y:";
  bool continuous = false;
  for (std::size_t d = 0; d < kinds.size(); ++d) {
    out << (d == 0 ? " " : ", ") << (d < y_names.size() ? y_names[d] : "y" + std::to_string(d))
        << ' ' << kinds[d];
    if (kinds[d] != "continuous") out << " (" << evaluation.output_levels[d] << " levels)";
    continuous = continuous || kinds[d] == "continuous";
  }
  out << (continuous ? "; log_likelihood is the log of a probability in the discrete outputs "
                       "times a density in the continuous ones\n"
                     : "; log_likelihood is log P(y|x), a log-probability\n");
  if (!left_out || evaluation.not_applicable.empty()) return;
  out << "not applicable to this y, left out:\n";
  for (const auto& score : evaluation.not_applicable) {
    out << "  " << std::left << std::setw(14) << score.score << std::right << score.reason << '\n';
  }
}

void print_score_table(std::ostream& out, const ModelEvaluation& evaluation) {
  const bool sets = evaluation.output_dim == 1 && !evaluation.output_kinds.empty() &&
                    evaluation.output_kinds.front() != "continuous";
  out << "scores: mean ± standard error over the pairs (log_likelihood: higher is better; "
      << (sets ? "sizes, masses and coverages of the sets of levels" : "widths and coverages")
      << " describe; every other score is a loss)\n";
  for (const auto& column : evaluation.scores) {
    out << "  " << std::left << std::setw(24) << column.name << std::right << std::setw(12)
        << format_table_number(column.mean) << " ± " << format_table_number(column.standard_error)
        << '\n';
  }
  if (evaluation.energy_draws > 0) {
    out << "energy_score: " << evaluation.energy_draws
        << " draws per pair; Monte-Carlo standard error of the mean "
        << format_table_number(evaluation.energy_monte_carlo_error) << '\n';
  }
}

void write_report(std::ostream& out, const nlohmann::json& document, const std::string& kind,
                  const EvaluationArguments& arguments) {
  if (!arguments.json_path.empty()) {
    write_file_atomically(arguments.json_path, document.dump() + '\n');
  }
  const std::string& plot_path = arguments.plot_path;
  if (plot_path.empty()) return;
  const std::string python = plotting_python();
  const std::string report =
      (std::filesystem::temp_directory_path() /
       ("cdens-plot-" + std::to_string(static_cast<long long>(getpid())) + ".json"))
          .string();
  write_file_atomically(report, document.dump());
  const ProgramResult result = run_program({python, "-m", "cdens.plot", kind, report, plot_path});
  std::filesystem::remove(report);
  if (result.status != 0) throw IoError(plot_failure(python, result));
  out << "plot: " << plot_path << '\n';
}

}  // namespace cdens::cli

#include "model_evaluation.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/core/text.hpp"
#include "cdens/model_file.hpp"
#include "columns.hpp"
#include "model_files.hpp"
#include "seed_option.hpp"

extern char** environ;

namespace cdens::cli {
namespace {

/// Runs `program arguments…` and waits for it; its exit status (or 127 if it could not start).
int run_program(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& argument : command) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  if (waitpid(child, &status, 0) < 0) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
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
      .add_option("--levels", arguments.interval_levels,
                  "Levels of the central and highest-density intervals scored, in (0, 1)")
      ->capture_default_str();
  command.add_option("--bins", arguments.bins, "Bins of the PIT and HPD histograms")
      ->capture_default_str();
  command
      .add_option("--draws", arguments.draws,
                  "Draws per pair for the energy score and the HPD values when d_y > 1 (even)")
      ->capture_default_str();
  add_seed_option(command, arguments.seed, "Seed of those draws (default 0)");
  command.add_option("--plot", arguments.plot_path,
                     "Draw the figure to this PNG file (needs the cdens Python package)");
  command.add_option("--json", arguments.json_path,
                     "Write the whole report, per-pair values included, to this JSON file");
}

std::string format_table_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  return buffer;
}

EvaluationOptions evaluation_options(const EvaluationArguments& arguments) {
  EvaluationOptions options;
  options.pinball_levels = parse_number_list(arguments.pinball_levels, "--pinball");
  options.interval_levels = parse_number_list(arguments.interval_levels, "--levels");
  options.histogram_bins = arguments.bins;
  options.draws = arguments.draws;
  options.seed = arguments.seed;
  return options;
}

EvaluatedModel evaluate_model_file(const std::string& path, const CsvTable& table,
                                   const EvaluationArguments& arguments) {
  const EvaluationOptions options = evaluation_options(arguments);
  const ModelFile file = load_model_file(path);
  if (file.density) {
    const DensityModel& model = *file.density;
    if (!arguments.x_columns.empty()) {
      throw InvalidArgument(path + " is a density model p(x): it has no inputs for --x");
    }
    const ColumnSelection data = choose_columns(table, arguments.y_columns, "--y", model.names);
    return {"density p(x) by " + model.report.method, data.names,
            evaluate_density(model.mixture, data.values, options)};
  }
  const ConditionalModel& model = *file.conditional;
  const ColumnSelection x = choose_columns(table, arguments.x_columns, "--x", model.x_names);
  const ColumnSelection y = choose_columns(table, arguments.y_columns, "--y", model.y_names);
  require_disjoint(x, y);
  return {"conditional p(y|x) by " + model.report.method, y.names,
          evaluate_model(model.mixture, x.values, y.values, options)};
}

void print_score_table(std::ostream& out, const ModelEvaluation& evaluation) {
  out << "scores: mean ± standard error over the pairs (log_likelihood: higher is better; "
         "widths and coverages describe; every other score is a loss)\n";
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
  const char* configured = std::getenv("CDENS_PYTHON");
  const std::string python = configured != nullptr && *configured ? configured : "python3";
  const std::string report =
      (std::filesystem::temp_directory_path() /
       ("cdens-plot-" + std::to_string(static_cast<long long>(getpid())) + ".json"))
          .string();
  write_file_atomically(report, document.dump());
  const int status = run_program({python, "-m", "cdens.plot", kind, report, plot_path});
  std::filesystem::remove(report);
  if (status != 0) {
    throw IoError("--plot: '" + python + " -m cdens.plot' failed (exit status " +
                  std::to_string(status) +
                  "); it needs the cdens Python package with matplotlib: set CDENS_PYTHON to an "
                  "interpreter that has them");
  }
  out << "plot: " << plot_path << '\n';
}

}  // namespace cdens::cli

// cdens fit DATA.csv --method METHOD --x COLS --y COLS [options]: fits a conditional density
// model p(y|x), prints what the fit found and optionally saves the model.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/conditional/projected_gate.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/metrics.hpp"
#include "cdens/core/progress.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/methods/registry.hpp"
#include "common.hpp"
#include "method_flags.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `fit` that are not method options, as typed.
struct FitArguments {
  std::string data_path;
  std::string method = "lscde";
  std::string x_columns;
  std::string y_columns;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string unlabeled_path;
  double holdout_fraction = 0.0;
  std::string out_path;
  bool no_header = false;
};

void run_fit(const FitArguments& arguments, const MethodFlags& flags, bool holdout_requested) {
  // Everything that can be checked without the data is checked before reading it.
  const MethodEntry& method = method_from_flag(arguments.method, MethodFamily::conditional);
  const OptionValues method_options = flags.values_for(method, arguments.seed, arguments.threads);
  if (!arguments.unlabeled_path.empty() && !method.takes_unlabeled_inputs) {
    throw InvalidArgument("option --unlabeled does not apply to --method " + method.name);
  }

  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x = choose_columns(table, split_list(arguments.x_columns, ',', "--x"));
  const ColumnSelection y = choose_columns(table, split_list(arguments.y_columns, ',', "--y"));
  require_disjoint(x, y);
  // Column options (--discrete, --ordered) name CSV columns; the method takes their positions
  // among the inputs, then the outputs.
  std::vector<std::string> column_names = x.names;
  column_names.insert(column_names.end(), y.names.begin(), y.names.end());
  OptionValues options = method_options;
  options.merge(flags.column_values_for(method, [&](const std::string& column) {
    const std::string name = choose_columns(table, {column}).names.front();
    const auto found = std::find(column_names.begin(), column_names.end(), name);
    if (found == column_names.end()) {
      throw InvalidArgument("column '" + column + "' is declared discrete or ordered but is " +
                            "neither an --x nor a --y column");
    }
    return static_cast<std::int64_t>(found - column_names.begin());
  }));
  // Estimators standardise every column and refuse a constant one; checking here first lets the
  // message name the column.
  Standardizer::fit(x.values, "x", x.names);
  Standardizer::fit(y.values, "y", y.names);
  Matrix fit_x = x.values;
  Matrix fit_y = y.values;
  Matrix unlabeled_x(x.values.rows(), 0);
  if (!arguments.unlabeled_path.empty()) {
    unlabeled_x =
        choose_columns(load_table(arguments.unlabeled_path, arguments.no_header), x.names).values;
  }
  std::optional<HoldoutSplit> split;
  if (holdout_requested) {
    split = split_for_holdout(table.values.cols(), arguments.holdout_fraction, arguments.seed);
    fit_x = gather_samples(x.values, split->fit_rows);
    fit_y = gather_samples(y.values, split->fit_rows);
  }

  // A progress line is for a person watching a terminal, never for a log file or a pipe.
  std::optional<TerminalProgress> terminal_progress;
  if (isatty(STDERR_FILENO)) terminal_progress.emplace(stderr);
  const FitContext context{
      local_communicator(),
      terminal_progress ? static_cast<Progress&>(*terminal_progress) : silent_progress(),
      column_names};
  ConditionalModel model = [&] {
    try {
      return fit_method(method, fit_x, fit_y, unlabeled_x, options, context);
    } catch (...) {
      // A fit that fails inside a stage never ends it; clear the progress line so that the
      // error message starts on a clean line.
      if (terminal_progress) terminal_progress->end();
      throw;
    }
  }();
  model.x_names = x.names;
  model.y_names = y.names;

  std::ostringstream out;
  out << "method: " << model.report.method << '\n' << "n: " << fit_x.cols() << '\n';
  print_variables(out, model.x_names, model.y_names);
  print_output_kinds(out, model);
  print_fit_report(out, model.report);
  if (const auto* projected = dynamic_cast<const ProjectedGate*>(&model.mixture.gate())) {
    // W acts on the inputs standardised per dimension (docs/methods/lsce.md).
    for (Index r = 0; r < projected->projection().rows(); ++r) {
      out << "projection_row_" << r << ":";
      for (Index c = 0; c < projected->projection().cols(); ++c) {
        out << ' ' << format_number(projected->projection()(r, c));
      }
      out << '\n';
    }
  }
  print_feature_selection(out, model);
  if (split) {
    const double nll =
        negative_log_likelihood(model.mixture, gather_samples(x.values, split->held_out_rows),
                                gather_samples(y.values, split->held_out_rows));
    // Full precision: scripts compare these numbers.
    out << "held_out_n: " << split->held_out_rows.size() << '\n'
        << "held_out_nll: " << format_number(nll) << '\n'
        << "held_out_mean_log_likelihood: " << format_number(-nll) << '\n';
  }
  save_fitted_model(out, arguments.out_path, model);
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto arguments = std::make_shared<FitArguments>();
  CLI::App* command = app.add_subcommand("fit", "Fit a conditional density model p(y|x)");
  command->add_option("data", arguments->data_path, "CSV file with the training data")->required();
  command->add_option("--method", arguments->method,
                      method_flag_help(MethodFamily::conditional, arguments->method));
  command->add_option("--x", arguments->x_columns, "Input columns, by name or 0-based index: a,b")
      ->required();
  command->add_option("--y", arguments->y_columns, "Output columns, by name or 0-based index")
      ->required();
  auto flags = std::make_shared<MethodFlags>(*command, MethodFamily::conditional);
  add_seed_option(*command, arguments->seed, "Seed of centres, folds and --holdout (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  command->add_option("--unlabeled", arguments->unlabeled_path,
                      "lscde: CSV file of extra inputs without outputs (same x column names)");
  CLI::Option* holdout =
      command->add_option("--holdout", arguments->holdout_fraction,
                          "Fraction of rows to hold out and score the fit on, in (0, 1)");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV files have no header line; columns are numbered 0, 1, …");
  command->callback(
      [arguments, flags, holdout] { run_fit(*arguments, *flags, holdout->count() > 0); });
}

}  // namespace cdens::cli

// cdens regress fit DATA.csv --x COLS --y COL [options]: fits PRESS with J states (or J = 1 …
// --max-states by AIC), prints the states and what the fit found, optionally scores a test file
// and saves the model.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/core/error.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/methods/option_tables.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/regression/press.hpp"
#include "common.hpp"
#include "method_flags.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `regress fit` that are not PRESS options, as typed.
struct RegressFitArguments {
  std::string data_path;
  std::string x_columns;
  std::string y_column;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string test_path;
  std::string out_path;
  bool no_header = false;
};

/// One line `name: v1,v2,…` of full-precision numbers.
void print_values(std::ostream& out, const std::string& name, const Vector& values) {
  out << name << ": ";
  for (Index j = 0; j < values.size(); ++j) out << (j ? "," : "") << format_number(values(j));
  out << '\n';
}

void run_regress_fit(const RegressFitArguments& arguments, const MethodFlags& flags) {
  const MethodEntry& method = find_method("press", MethodFamily::regression);
  const OptionValues options = flags.values_for(method, arguments.seed, arguments.threads);
  const PressRegressionOptions press_options = press_option_table().build(options);

  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x = choose_columns(table, split_list(arguments.x_columns, ',', "--x"));
  const ColumnSelection y = choose_columns(table, split_list(arguments.y_column, ',', "--y"));
  if (y.names.size() != 1) throw InvalidArgument("--y names one output column for PRESS");
  require_disjoint(x, y);
  // Checking here first lets the message name a constant column.
  if (press_options.press.standardize_inputs) Standardizer::fit(x.values, "x", x.names);
  Standardizer::fit(y.values, "y", y.names);

  std::optional<TerminalProgress> terminal_progress;
  if (isatty(STDERR_FILENO)) terminal_progress.emplace(stderr);
  const FitContext context{local_communicator(), terminal_progress
                                                     ? static_cast<Progress&>(*terminal_progress)
                                                     : silent_progress()};
  PressFit fit = [&] {
    try {
      return fit_press_regression(x.values, y.values, press_options, context);
    } catch (...) {
      if (terminal_progress) terminal_progress->end();
      throw;
    }
  }();
  ConditionalModel model{std::move(fit.model), x.names, y.names, std::move(fit.report)};

  std::ostringstream out;
  out << "method: press\n"
      << "n: " << x.values.cols() << '\n'
      << "criterion: " << to_string(press_options.press.criterion) << '\n';
  print_variables(out, model.x_names, model.y_names);
  print_fit_report(out, model.report);
  print_values(out, "state_means", fit.state_means);
  print_values(out, "state_sizes", fit.state_sizes);
  if (!arguments.test_path.empty()) {
    const CsvTable test = load_table(arguments.test_path, arguments.no_header);
    const Matrix test_x = choose_columns(test, x.names).values;
    const Vector test_y = choose_columns(test, y.names).values.row(0).transpose();
    const Vector residuals = test_y - press_predict(model.mixture, test_x);
    const double nll = -model.mixture.log_pdf(test_x, test_y.transpose()).mean();
    out << "test_n: " << test_y.size() << '\n'
        << "test_mse: " << format_number(residuals.squaredNorm() / residuals.size()) << '\n'
        << "test_mad: " << format_number(residuals.cwiseAbs().mean()) << '\n'
        << "test_nll: " << format_number(nll) << '\n';
  }
  save_fitted_model(out, arguments.out_path, model);
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_regress_fit_command(CLI::App& regress) {
  auto arguments = std::make_shared<RegressFitArguments>();
  CLI::App* command = regress.add_subcommand("fit", "Fit a PRESS regression of y on x");
  command->add_option("data", arguments->data_path, "CSV file with the training data")->required();
  command->add_option("--x", arguments->x_columns, "Input columns, by name or 0-based index: a,b")
      ->required();
  command->add_option("--y", arguments->y_column, "The output column")->required();
  auto flags = std::make_shared<MethodFlags>(*command, MethodFamily::regression);
  add_seed_option(*command, arguments->seed, "Seed of the hold-out split and starts (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  command->add_option("--test", arguments->test_path,
                      "CSV file with the same columns: report test MSE, MAD and NLL");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV files have no header line; columns are numbered 0, 1, …");
  command->callback([arguments, flags] { run_regress_fit(*arguments, *flags); });
}

}  // namespace cdens::cli

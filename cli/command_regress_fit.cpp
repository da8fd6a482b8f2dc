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
#include "cdens/regression/press.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

struct RegressFitArguments {
  std::string data_path;
  std::string x_columns;
  std::string y_column;
  Index n_states = 0;
  Index max_states = 0;
  std::string criterion = to_string(PressOptions{}.criterion);
  double smoothness_weight = 0.0;
  double target_dof = 0.0;
  double lasso_weight = 0.0;
  std::string optimizer = to_string(PressOptions{}.optimizer);
  double learning_rate = PressOptions{}.learning_rate;
  double holdout_fraction = PressOptions{}.holdout_fraction;
  int patience = PressOptions{}.patience;
  int max_evaluations = PressOptions{}.max_evaluations;
  int restarts = PressOptions{}.restarts;
  double init_scale = PressOptions{}.init_scale;
  bool raw_inputs = false;
  bool single_precision = false;
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

void run_regress_fit(const RegressFitArguments& arguments) {
  PressOptions options;
  options.n_states = arguments.n_states;
  options.criterion = parse_press_criterion(arguments.criterion);
  options.smoothness_weight = arguments.smoothness_weight;
  options.target_dof = arguments.target_dof;
  options.lasso_weight = arguments.lasso_weight;
  options.optimizer = parse_press_optimizer(arguments.optimizer);
  options.learning_rate = arguments.learning_rate;
  options.holdout_fraction = arguments.holdout_fraction;
  options.patience = arguments.patience;
  options.max_evaluations = arguments.max_evaluations;
  options.restarts = arguments.restarts;
  options.init_scale = arguments.init_scale;
  options.standardize_inputs = !arguments.raw_inputs;
  options.single_precision = arguments.single_precision;
  options.seed = arguments.seed;
  options.threads = arguments.threads;
  if (arguments.n_states > 0 && arguments.max_states > 0) {
    throw InvalidArgument("give either --states or --max-states, not both");
  }

  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x = choose_columns(table, split_list(arguments.x_columns, ',', "--x"));
  const ColumnSelection y = choose_columns(table, split_list(arguments.y_column, ',', "--y"));
  if (y.names.size() != 1) throw InvalidArgument("--y names one output column for PRESS");
  require_disjoint(x, y);
  // Checking here first lets the message name a constant column.
  if (options.standardize_inputs) Standardizer::fit(x.values, "x", x.names);
  Standardizer::fit(y.values, "y", y.names);

  std::optional<TerminalProgress> terminal_progress;
  if (isatty(STDERR_FILENO)) terminal_progress.emplace(stderr);
  const FitContext context{local_communicator(), terminal_progress
                                                     ? static_cast<Progress&>(*terminal_progress)
                                                     : silent_progress()};
  PressFit fit = [&] {
    try {
      if (arguments.max_states > 0) {
        PressSelection selection =
            select_press_states(x.values, y.values, arguments.max_states, options, context);
        return std::move(selection.fits[static_cast<std::size_t>(selection.best)]);
      }
      return fit_press(x.values, y.values, options, context);
    } catch (...) {
      if (terminal_progress) terminal_progress->end();
      throw;
    }
  }();
  ConditionalModel model{std::move(fit.model), x.names, y.names, std::move(fit.report)};

  std::ostringstream out;
  out << "method: press\n"
      << "n: " << x.values.cols() << '\n'
      << "criterion: " << arguments.criterion << '\n';
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
  command->add_option("--states", arguments->n_states,
                      "Number of predictive states J (default round(log n), at least 2)");
  command->add_option("--max-states", arguments->max_states,
                      "Fit J = 1 … this and keep the smallest AIC (eq. 37)");
  command->add_option("--criterion", arguments->criterion,
                      "Training criterion: mse, loocv or gcv (default gcv, the paper's §5)");
  command->add_option("--mu", arguments->smoothness_weight,
                      "Weight mu of the smoothness penalty mu (nu_smooth - nu)^2 (default 0)");
  command->add_option("--nu-smooth", arguments->target_dof,
                      "Target degrees of freedom nu_smooth in [1, J], with --mu");
  command->add_option("--lambda", arguments->lasso_weight,
                      "LASSO weight on the coefficients of x (default 0)");
  command->add_option("--optimizer", arguments->optimizer,
                      "adam (the paper's gradient path, default) or lbfgs");
  command->add_option("--learning-rate", arguments->learning_rate,
                      "adam: step size (default 0.003)");
  command->add_option("--holdout-fraction", arguments->holdout_fraction,
                      "Fraction held out for early stopping, in [0, 1) (default 0.2)");
  command->add_option("--patience", arguments->patience,
                      "Stop after this many evaluations without hold-out improvement (default "
                      "500)");
  command->add_option("--max-evaluations", arguments->max_evaluations,
                      "Objective evaluations per start at most (default 20000)");
  command->add_option("--restarts", arguments->restarts, "Random starts, best kept (default 5)");
  command->add_option("--init-scale", arguments->init_scale,
                      "Standard deviation of the random starting coefficients (default 1)");
  command->add_flag("--raw-inputs", arguments->raw_inputs,
                    "Do not standardise x (allows constant columns)");
  command->add_flag("--single-precision", arguments->single_precision,
                    "Multiply the design in single precision (large data sets)");
  add_seed_option(*command, arguments->seed, "Seed of the hold-out split and starts (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  command->add_option("--test", arguments->test_path,
                      "CSV file with the same columns: report test MSE, MAD and NLL");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV files have no header line; columns are numbered 0, 1, …");
  command->callback([arguments] { run_regress_fit(*arguments); });
}

}  // namespace cdens::cli

// cdens density fit DATA.csv --method METHOD [--columns COLS] [options]: fits an unconditional
// density p(x) (a diagonal Gaussian mixture), prints what the fit found and optionally saves it.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/core/samples.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/methods/registry.hpp"
#include "common.hpp"
#include "method_flags.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `density fit` that are not method options, as typed.
struct DensityFitArguments {
  std::string data_path;
  std::string method = "parzen";
  std::string columns;  // empty: every column of the file
  std::uint64_t seed = 0;
  int threads = 0;
  double holdout_fraction = 0.0;
  std::string out_path;
  bool no_header = false;
};

void run_density_fit(const DensityFitArguments& arguments, const MethodFlags& flags,
                     bool holdout_requested) {
  // Everything that can be checked without the data is checked before reading it.
  const MethodEntry& method = method_from_flag(arguments.method, MethodFamily::density);
  const OptionValues options = flags.values_for(method, arguments.seed, arguments.threads);

  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x =
      choose_columns(table, arguments.columns, "--columns", table.column_names);
  // Estimators standardise every column and refuse a constant one; checking here first lets the
  // message name the column.
  Standardizer::fit(x.values, "x", x.names);
  Matrix fit_data = x.values;
  std::optional<HoldoutSplit> split;
  if (holdout_requested) {
    split = split_for_holdout(x.values.cols(), arguments.holdout_fraction, arguments.seed);
    fit_data = gather_samples(x.values, split->fit_rows);
  }
  DensityModel model = fit_method(method, fit_data, options);
  model.names = x.names;

  std::ostringstream out;
  out << "method: " << model.report.method << '\n'
      << "n: " << fit_data.cols() << '\n'
      << "variables: " << join(model.names, ",") << '\n'
      << "dimension: " << model.names.size() << '\n'
      << "n_kernels: " << model.mixture.n_components() << '\n';
  print_fit_report(out, model.report);
  if (split) {
    const double mean_log_likelihood =
        model.mixture.mean_log_likelihood(gather_samples(x.values, split->held_out_rows));
    // Full precision: scripts compare these numbers.
    out << "held_out_n: " << split->held_out_rows.size() << '\n'
        << "held_out_mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
        << "held_out_nll: " << format_number(-mean_log_likelihood) << '\n';
  }
  save_fitted_model(out, arguments.out_path, model);
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_density_fit_command(CLI::App& density) {
  auto arguments = std::make_shared<DensityFitArguments>();
  CLI::App* command =
      density.add_subcommand("fit", "Fit a density p(x): a diagonal Gaussian mixture");
  command->add_option("data", arguments->data_path, "CSV file with the samples")->required();
  command->add_option("--method", arguments->method,
                      method_flag_help(MethodFamily::density, arguments->method));
  command->add_option("--columns", arguments->columns,
                      "Columns to model, by name or 0-based index: a,b (default: all)");
  auto flags = std::make_shared<MethodFlags>(*command, MethodFamily::density);
  add_seed_option(*command, arguments->seed, "Seed of starts, folds and --holdout (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  CLI::Option* holdout =
      command->add_option("--holdout", arguments->holdout_fraction,
                          "Fraction of rows to hold out and score the fit on, in (0, 1)");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV file has no header line; columns are numbered 0, 1, …");
  command->callback(
      [arguments, flags, holdout] { run_density_fit(*arguments, *flags, holdout->count() > 0); });
}

}  // namespace cdens::cli

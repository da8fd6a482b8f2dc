// cdens density fit DATA.csv --method METHOD [--columns COLS] [options]: fits an unconditional
// density p(x) (a diagonal Gaussian mixture), prints what the fit found and optionally saves it.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/core/error.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/density/gmm.hpp"
#include "cdens/density/gskd.hpp"
#include "cdens/density/parzen.hpp"
#include "cdens/density/rsde.hpp"
#include "cdens/density/skd.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `density fit`, as typed.
struct DensityFitArguments {
  std::string data_path;
  std::string method = "pw";
  std::string columns;  // empty: every column of the file
  std::string widths;   // empty: the method's default search
  std::string criterion = to_string(ParzenOptions{}.criterion);
  bool per_dimension = ParzenOptions{}.per_dimension;
  Index n_components = GmmOptions{}.n_components;
  int n_init = GmmOptions{}.n_init;
  std::string initialization = to_string(GmmOptions{}.initialization);
  int folds = RsdeOptions{}.folds;
  double target_width = 0.0;  // 0: the Parzen window's choice
  int population = 0;         // 0: the paper's RWBS setting for the dimension
  int generations = 0;
  int iterations = 0;
  std::uint64_t seed = 0;
  int threads = 0;
  double holdout_fraction = 0.0;
  std::string out_path;
  bool no_header = false;
};

/// What the command line asks of a fit, parsed.
struct DensityFitSettings {
  std::vector<double> widths;  // empty: the method's default
  std::string criterion;
  bool per_dimension;
  Index n_components;
  int n_init;
  std::string initialization;
  int folds;
  double target_width;
  int population;
  int generations;
  int iterations;
  std::uint64_t seed;
  int threads;
};

using DensityMethodFit = DensityModel (*)(const MatrixView&, const DensityFitSettings&);

DensityModel fit_with_parzen(const MatrixView& x, const DensityFitSettings& settings) {
  ParzenOptions options;
  options.widths = settings.widths;
  options.criterion = parse_parzen_criterion(settings.criterion);
  options.per_dimension = settings.per_dimension;
  options.threads = settings.threads;
  return unnamed_density_model(fit_parzen(x, options));
}

DensityModel fit_with_gmm(const MatrixView& x, const DensityFitSettings& settings) {
  GmmOptions options;
  options.n_components = settings.n_components;
  options.n_init = settings.n_init;
  options.initialization = parse_gmm_initialization(settings.initialization);
  options.seed = settings.seed;
  options.threads = settings.threads;
  return unnamed_density_model(fit_gmm(x, options));
}

DensityModel fit_with_rsde(const MatrixView& x, const DensityFitSettings& settings) {
  RsdeOptions options;
  if (!settings.widths.empty()) options.widths = settings.widths;
  options.folds = settings.folds;
  options.seed = settings.seed;
  options.threads = settings.threads;
  return unnamed_density_model(fit_rsde(x, options));
}

DensityModel fit_with_skd(const MatrixView& x, const DensityFitSettings& settings) {
  SkdOptions options;
  if (!settings.widths.empty()) options.widths = settings.widths;
  options.target_width = settings.target_width;
  options.folds = settings.folds;
  options.seed = settings.seed;
  options.threads = settings.threads;
  return unnamed_density_model(fit_skd(x, options));
}

DensityModel fit_with_gskd(const MatrixView& x, const DensityFitSettings& settings) {
  GskdOptions options;
  options.target_width = settings.target_width;
  options.population = settings.population;
  options.generations = settings.generations;
  options.iterations = settings.iterations;
  options.seed = settings.seed;
  options.threads = settings.threads;
  return unnamed_density_model(fit_gskd(x, options));
}

/// A method and the method-specific options it takes (every method takes --columns, --seed,
/// --threads, --holdout, --out and --no-header).
struct DensityMethod {
  DensityMethodFit fit;
  std::vector<std::string> options;
};

/// Every method `density fit --method` accepts. A new estimator adds one line here.
const std::map<std::string, DensityMethod>& known_density_methods() {
  static const std::map<std::string, DensityMethod> methods = {
      {"gmm", {&fit_with_gmm, {"--components", "--n-init", "--init"}}},
      {"gskd",
       {&fit_with_gskd, {"--target-width", "--population", "--generations", "--iterations"}}},
      {"pw", {&fit_with_parzen, {"--width", "--criterion", "--per-dimension"}}},
      {"rsde", {&fit_with_rsde, {"--width", "--folds"}}},
      {"skd", {&fit_with_skd, {"--width", "--folds", "--target-width"}}},
  };
  return methods;
}

std::vector<std::string> density_method_names() {
  std::vector<std::string> names;
  for (const auto& entry : known_density_methods()) names.push_back(entry.first);
  return names;
}

const DensityMethod& find_density_method(const std::string& name) {
  const auto& methods = known_density_methods();
  const auto found = methods.find(name);
  if (found == methods.end()) {
    throw InvalidArgument("unknown density method '" + name +
                          "' (known methods: " + join(density_method_names(), ", ") + ")");
  }
  return found->second;
}

void run_density_fit(const DensityFitArguments& arguments, bool holdout_requested,
                     const std::vector<std::string>& given_options) {
  // Everything that can be checked without the data is checked before reading it.
  const DensityMethod& method = find_density_method(arguments.method);
  for (const auto& option : given_options) {
    if (std::find(method.options.begin(), method.options.end(), option) == method.options.end()) {
      throw InvalidArgument("option " + option + " does not apply to --method " + arguments.method +
                            " (its options: " + join(method.options, ", ") + ")");
    }
  }
  DensityFitSettings settings{{},
                              arguments.criterion,
                              arguments.per_dimension,
                              arguments.n_components,
                              arguments.n_init,
                              arguments.initialization,
                              arguments.folds,
                              arguments.target_width,
                              arguments.population,
                              arguments.generations,
                              arguments.iterations,
                              arguments.seed,
                              arguments.threads};
  if (!arguments.widths.empty()) settings.widths = parse_number_list(arguments.widths, "--width");

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
  DensityModel model = method.fit(fit_data, settings);
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
                      "Estimator: " + join(density_method_names(), ", ") + " (default pw)");
  command->add_option("--columns", arguments->columns,
                      "Columns to model, by name or 0-based index: a,b (default: all)");
  std::vector<CLI::Option*> specific;
  specific.push_back(command->add_option(
      "--width", arguments->widths,
      "pw, rsde, skd: kernel width(s) in standardised units, one value or a list (default: pw a "
      "1-D search over 0.01 … 3, rsde and skd 12 widths 0.1 … 2 chosen by held-out ISE)"));
  specific.push_back(command->add_option(
      "--criterion", arguments->criterion,
      "pw: width criterion, loo_likelihood or least_squares (leave-one-out ISE) (default "
      "loo_likelihood)"));
  specific.push_back(command->add_flag(
      "--per-dimension", arguments->per_dimension,
      "pw: one width per dimension, all chosen by the leave-one-out likelihood (default: one "
      "width, the paper's)"));
  specific.push_back(command->add_option("--components", arguments->n_components,
                                         "gmm: number of mixture components (default 1)"));
  specific.push_back(command->add_option(
      "--n-init", arguments->n_init, "gmm: EM runs from different starts, best kept (default 1)"));
  specific.push_back(command->add_option("--init", arguments->initialization,
                                         "gmm: kmeans++ or box (centres uniform in [-3, 3]^d, "
                                         "standardised units) (default kmeans++)"));
  specific.push_back(command->add_option(
      "--folds", arguments->folds, "rsde, skd: cross-validation folds for the width (default 5)"));
  specific.push_back(command->add_option(
      "--target-width", arguments->target_width,
      "skd, gskd: width of the Parzen target in standardised units (default: the Parzen "
      "window's leave-one-out likelihood choice)"));
  specific.push_back(command->add_option(
      "--population", arguments->population,
      "gskd: RWBS population P_S (default: the paper's, 10 in 1-D, 20 in 2-D, 40 above)"));
  specific.push_back(command->add_option("--generations", arguments->generations,
                                         "gskd: RWBS generations N_G (default 10)"));
  specific.push_back(command->add_option(
      "--iterations", arguments->iterations,
      "gskd: RWBS iterations M_I per generation (default: 200 up to 2-D, 400 above)"));
  add_seed_option(*command, arguments->seed, "Seed of starts, folds and --holdout (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  CLI::Option* holdout =
      command->add_option("--holdout", arguments->holdout_fraction,
                          "Fraction of rows to hold out and score the fit on, in (0, 1)");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV file has no header line; columns are numbered 0, 1, …");
  command->callback([arguments, holdout, specific] {
    std::vector<std::string> given;
    for (const CLI::Option* option : specific) {
      if (option->count() > 0) given.push_back(option->get_name());
    }
    run_density_fit(*arguments, holdout->count() > 0, given);
  });
}

}  // namespace cdens::cli

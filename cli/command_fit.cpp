// cdens fit DATA.csv --method METHOD --x COLS --y COLS [options]: fits a conditional density
// model p(y|x), prints what the fit found and optionally saves the model.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cdens/conditional/epsilon_kde.hpp"
#include "cdens/conditional/forward_selection.hpp"
#include "cdens/conditional/linear_gaussian.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/lsce.hpp"
#include "cdens/conditional/nadaraya_watson_cde.hpp"
#include "cdens/conditional/product_kernel_cde.hpp"
#include "cdens/conditional/projected_gate.hpp"
#include "cdens/conditional/rkde.hpp"
#include "cdens/conditional/sa_lscde.hpp"
#include "cdens/conditional/sacde.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/metrics.hpp"
#include "cdens/core/progress.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/samples.hpp"
#include "cdens/core/standardizer.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

/// The command-line arguments of `fit`, as typed.
struct FitArguments {
  std::string data_path;
  std::string method = "lscde";
  std::string x_columns;
  std::string y_columns;
  std::string sigmas;    // empty: the method's default grid
  std::string lambdas;   // empty: the method's default grid
  std::string epsilons;  // empty: the method's default grid
  std::string bandwidths;  // empty: chosen by leave-one-out likelihood
  std::string trend = to_string(ProductKernelCdeOptions{}.trend);
  // Defaults are LSCDE's, the paper's (§2.6), and also those of every other method that takes
  // these options (NW-CDE: 100 centres; ε-KDE, RKDE: 5 folds).
  Index n_centers = LscdeOptions{}.n_centers;
  int folds = LscdeOptions{}.folds;
  std::string cv_loss = to_string(LscdeOptions{}.cv_loss);
  Index dz = ReductionOptions{}.dz;
  int restarts = ReductionOptions{}.restarts;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string unlabeled_path;
  double holdout_fraction = 0.0;
  std::string out_path;
  bool no_header = false;
};

/// What the command line asks of a fit, in terms every method maps onto its own options.
struct FitSettings {
  std::vector<double> sigmas;    // empty: the method's default
  std::vector<double> lambdas;   // empty: the method's default
  std::vector<double> epsilons;  // empty: the method's default
  std::vector<double> bandwidths;  // empty: the method's default
  KernelTrend trend;
  Index n_centers;
  int folds;
  CvLoss cv_loss;
  Index dz;
  int restarts;
  std::uint64_t seed;
  int threads;
};

/// Pairs to fit on, and inputs without outputs (d_x × 0 when there are none).
struct TrainingData {
  Matrix x;
  Matrix y;
  Matrix unlabeled_x;
};

/// Fits one method; the result has no variable names yet.
using MethodFit = ConditionalModel (*)(const TrainingData&, const FitSettings&, const FitContext&);

/// A method's options with the settings every method takes: the σ grid (when given), the seed
/// and the thread count.
template <class Options>
Options common_options(const FitSettings& settings) {
  Options options;
  if (!settings.sigmas.empty()) options.sigmas = settings.sigmas;
  options.seed = settings.seed;
  options.threads = settings.threads;
  return options;
}

/// The options of a method with a λ grid, basis centres and folds (LSCDE, SA-CDE): common_options
/// and those three.
template <class Options>
Options regularized_options(const FitSettings& settings) {
  auto options = common_options<Options>(settings);
  if (!settings.lambdas.empty()) options.lambdas = settings.lambdas;
  options.n_centers = settings.n_centers;
  options.folds = settings.folds;
  return options;
}

ConditionalModel fit_with_lscde(const TrainingData& data, const FitSettings& settings,
                                const FitContext& context) {
  auto options = regularized_options<LscdeOptions>(settings);
  options.cv_loss = settings.cv_loss;
  return unnamed_model(fit_lscde(data.x, data.y, data.unlabeled_x, options, context));
}

ConditionalModel fit_with_epsilon_kde(const TrainingData& data, const FitSettings& settings,
                                      const FitContext& context) {
  auto options = common_options<EpsilonKdeOptions>(settings);
  if (!settings.epsilons.empty()) options.epsilons = settings.epsilons;
  options.folds = settings.folds;
  return unnamed_model(fit_epsilon_kde(data.x, data.y, options, context));
}

ConditionalModel fit_with_nadaraya_watson_cde(const TrainingData& data, const FitSettings& settings,
                                              const FitContext& context) {
  auto options = common_options<NadarayaWatsonCdeOptions>(settings);
  options.n_centers = settings.n_centers;
  return unnamed_model(fit_nadaraya_watson_cde(data.x, data.y, options, context));
}

ConditionalModel fit_with_rkde(const TrainingData& data, const FitSettings& settings,
                               const FitContext& context) {
  auto options = common_options<RkdeOptions>(settings);
  options.folds = settings.folds;
  return unnamed_model(fit_rkde(data.x, data.y, options, context));
}

ConditionalModel fit_with_product_kernel_cde(const TrainingData& data, const FitSettings& settings,
                                             const FitContext& context) {
  ProductKernelCdeOptions options;
  options.bandwidths = settings.bandwidths;
  options.trend = settings.trend;
  options.seed = settings.seed;
  options.threads = settings.threads;
  return unnamed_model(fit_product_kernel_cde(data.x, data.y, options, context));
}

ConditionalModel fit_with_linear_gaussian(const TrainingData& data, const FitSettings&,
                                          const FitContext& context) {
  return unnamed_model(fit_linear_gaussian(data.x, data.y, context));
}

/// LSCE or an LSMI combination (lsce.hpp).
template <ReducedCdeMethod method>
ConditionalModel fit_with_reduction(const TrainingData& data, const FitSettings& settings,
                                    const FitContext& context) {
  ReducedCdeOptions options;
  ReductionOptions& reduction = options.reduction;
  if (!settings.sigmas.empty()) reduction.sigmas = settings.sigmas;
  if (!settings.lambdas.empty()) reduction.lambdas = settings.lambdas;
  if (!settings.epsilons.empty()) options.epsilon_kde.epsilons = settings.epsilons;
  reduction.n_centers = settings.n_centers;
  reduction.folds = settings.folds;
  options.epsilon_kde.folds = settings.folds;
  reduction.dz = settings.dz;
  reduction.restarts = settings.restarts;
  reduction.seed = settings.seed;
  reduction.threads = settings.threads;
  return unnamed_model(fit_reduced_cde(data.x, data.y, method, options, context));
}

ConditionalModel fit_with_sacde(const TrainingData& data, const FitSettings& settings,
                                const FitContext& context) {
  return unnamed_model(
      fit_sacde(data.x, data.y, regularized_options<SaCdeOptions>(settings), context));
}

/// SA-LSCDE: --sigma, --lambda, --n-centers and --folds apply to both stages.
ConditionalModel fit_with_sa_lscde(const TrainingData& data, const FitSettings& settings,
                                   const FitContext& context) {
  SaLscdeOptions options;
  options.selection = regularized_options<SaCdeOptions>(settings);
  options.estimation = regularized_options<LscdeOptions>(settings);
  // The SA-CDE paper's grid for both stages when none is given (§3).
  options.estimation.sigmas = options.selection.sigmas;
  options.estimation.lambdas = options.selection.lambdas;
  return unnamed_model(fit_sa_lscde(data.x, data.y, options, context));
}

/// Forward selection around `method`'s fit; the wrapped fits run on one thread each, the
/// candidates of a step in parallel.
template <MethodFit method>
ConditionalModel fit_with_forward_selection(const TrainingData& data, const FitSettings& settings,
                                            const FitContext& context, const std::string& name) {
  FitSettings single_threaded = settings;
  single_threaded.threads = 1;
  ForwardSelectionOptions options;
  options.method = "fw-" + name;
  options.threads = settings.threads;
  const ConditionalFit fit = fit_forward_selection(
      data.x, data.y,
      [&](const MatrixView& x, const MatrixView& y) {
        const TrainingData subset{x, y, Matrix(x.rows(), 0)};
        ConditionalModel model = method(subset, single_threaded, context);
        return ConditionalFit{std::move(model.mixture), std::move(model.report)};
      },
      options);
  return {fit.model, {}, {}, fit.report};
}

/// The SA-CDE paper's grid (§3) for LSCDE inside FW-LSCDE when no --sigma/--lambda is given.
ConditionalModel fit_with_paper_grid_lscde(const TrainingData& data, const FitSettings& settings,
                                           const FitContext& context) {
  FitSettings paper = settings;
  if (paper.sigmas.empty()) paper.sigmas = sa_cde_width_grid();
  if (paper.lambdas.empty()) paper.lambdas = sa_cde_width_grid();
  return fit_with_lscde(data, paper, context);
}

ConditionalModel fit_with_fw_lscde(const TrainingData& data, const FitSettings& settings,
                                   const FitContext& context) {
  return fit_with_forward_selection<&fit_with_paper_grid_lscde>(data, settings, context, "lscde");
}

ConditionalModel fit_with_fw_epsilon_kde(const TrainingData& data, const FitSettings& settings,
                                         const FitContext& context) {
  return fit_with_forward_selection<&fit_with_epsilon_kde>(data, settings, context, "ekde");
}

ConditionalModel fit_with_fw_nadaraya_watson_cde(const TrainingData& data,
                                                 const FitSettings& settings,
                                                 const FitContext& context) {
  return fit_with_forward_selection<&fit_with_nadaraya_watson_cde>(data, settings, context,
                                                                   "nwcde");
}

/// A method and the method-specific options it takes (every method takes --x, --y, --seed,
/// --threads, --holdout, --out and --no-header).
struct Method {
  MethodFit fit;
  std::vector<std::string> options;
};

/// Every method `--method` accepts. A new estimator adds one line here.
const std::map<std::string, Method>& known_methods() {
  static const std::map<std::string, Method> methods = {
      {"ekde", {&fit_with_epsilon_kde, {"--sigma", "--epsilon", "--folds"}}},
      {"fw-ekde", {&fit_with_fw_epsilon_kde, {"--sigma", "--epsilon", "--folds"}}},
      {"fw-lscde", {&fit_with_fw_lscde, {"--sigma", "--lambda", "--n-centers", "--folds"}}},
      {"fw-nwcde", {&fit_with_fw_nadaraya_watson_cde, {"--sigma", "--n-centers"}}},
      {"kcde", {&fit_with_product_kernel_cde, {"--bandwidth", "--trend"}}},
      {"linear", {&fit_with_linear_gaussian, {}}},
      {"lscde",
       {&fit_with_lscde,
        {"--sigma", "--lambda", "--n-centers", "--folds", "--cv-loss", "--unlabeled"}}},
      {"lsce",
       {&fit_with_reduction<ReducedCdeMethod::lsce>,
        {"--sigma", "--lambda", "--n-centers", "--folds", "--dz", "--restarts"}}},
      {"lsce-ekde",
       {&fit_with_reduction<ReducedCdeMethod::lsce_ekde>,
        {"--sigma", "--lambda", "--epsilon", "--n-centers", "--folds", "--dz", "--restarts"}}},
      {"lsmi-ekde",
       {&fit_with_reduction<ReducedCdeMethod::lsmi_ekde>,
        {"--sigma", "--lambda", "--epsilon", "--n-centers", "--folds", "--dz", "--restarts"}}},
      {"lsmi-lscde",
       {&fit_with_reduction<ReducedCdeMethod::lsmi_lscde>,
        {"--sigma", "--lambda", "--n-centers", "--folds", "--dz", "--restarts"}}},
      {"nwcde", {&fit_with_nadaraya_watson_cde, {"--sigma", "--n-centers"}}},
      {"rkde", {&fit_with_rkde, {"--sigma", "--folds"}}},
      {"salscde", {&fit_with_sa_lscde, {"--sigma", "--lambda", "--n-centers", "--folds"}}},
      {"sacde", {&fit_with_sacde, {"--sigma", "--lambda", "--n-centers", "--folds"}}},
  };
  return methods;
}

const Method& find_method(const std::string& name) {
  const auto& methods = known_methods();
  const auto found = methods.find(name);
  if (found == methods.end()) {
    std::vector<std::string> names;
    for (const auto& entry : methods) names.push_back(entry.first);
    throw InvalidArgument("unknown method '" + name + "' (known methods: " + join(names, ", ") +
                          ")");
  }
  return found->second;
}

/// InvalidArgument for an option given on the command line that `method` does not take.
void require_applicable_options(const std::string& name, const Method& method,
                                const std::vector<std::string>& given) {
  for (const auto& option : given) {
    if (std::find(method.options.begin(), method.options.end(), option) == method.options.end()) {
      throw InvalidArgument("option " + option + " does not apply to --method " + name +
                            " (its options: " + join(method.options, ", ") + ")");
    }
  }
}

void run_fit(const FitArguments& arguments, bool holdout_requested,
             const std::vector<std::string>& given_options) {
  // Everything that can be checked without the data is checked before reading it.
  const Method& method = find_method(arguments.method);
  require_applicable_options(arguments.method, method, given_options);
  const MethodFit fit_method = method.fit;
  FitSettings settings{{},
                       {},
                       {},
                       {},
                       parse_kernel_trend(arguments.trend),
                       arguments.n_centers,
                       arguments.folds,
                       parse_cv_loss(arguments.cv_loss),
                       arguments.dz,
                       arguments.restarts,
                       arguments.seed,
                       arguments.threads};
  if (!arguments.sigmas.empty()) settings.sigmas = parse_number_list(arguments.sigmas, "--sigma");
  if (!arguments.lambdas.empty()) {
    settings.lambdas = parse_number_list(arguments.lambdas, "--lambda");
  }
  if (!arguments.epsilons.empty()) {
    settings.epsilons = parse_number_list(arguments.epsilons, "--epsilon");
  }
  if (!arguments.bandwidths.empty()) {
    settings.bandwidths = parse_number_list(arguments.bandwidths, "--bandwidth");
  }

  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const ColumnSelection x = choose_columns(table, split_list(arguments.x_columns, ',', "--x"));
  const ColumnSelection y = choose_columns(table, split_list(arguments.y_columns, ',', "--y"));
  require_disjoint(x, y);
  // Estimators standardise every column and refuse a constant one; checking here first lets the
  // message name the column.
  Standardizer::fit(x.values, "x", x.names);
  Standardizer::fit(y.values, "y", y.names);
  TrainingData data{x.values, y.values, Matrix(x.values.rows(), 0)};
  if (!arguments.unlabeled_path.empty()) {
    data.unlabeled_x =
        choose_columns(load_table(arguments.unlabeled_path, arguments.no_header), x.names).values;
  }
  std::optional<HoldoutSplit> split;
  if (holdout_requested) {
    split = split_for_holdout(table.values.cols(), arguments.holdout_fraction, arguments.seed);
    data.x = gather_samples(x.values, split->fit_rows);
    data.y = gather_samples(y.values, split->fit_rows);
  }

  // A progress line is for a person watching a terminal, never for a log file or a pipe.
  std::optional<TerminalProgress> terminal_progress;
  if (isatty(STDERR_FILENO)) terminal_progress.emplace(stderr);
  const FitContext context{local_communicator(), terminal_progress
                                                     ? static_cast<Progress&>(*terminal_progress)
                                                     : silent_progress()};
  ConditionalModel model = [&] {
    try {
      return fit_method(data, settings, context);
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
  out << "method: " << model.report.method << '\n' << "n: " << data.x.cols() << '\n';
  print_variables(out, model.x_names, model.y_names);
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
  std::vector<std::string> method_names;
  for (const auto& entry : known_methods()) method_names.push_back(entry.first);
  command->add_option("--method", arguments->method,
                      "Estimator: " + join(method_names, ", ") + " (default lscde)");
  command->add_option("--x", arguments->x_columns, "Input columns, by name or 0-based index: a,b")
      ->required();
  command->add_option("--y", arguments->y_columns, "Output columns, by name or 0-based index")
      ->required();
  std::vector<CLI::Option*> specific;
  specific.push_back(command->add_option(
      "--sigma", arguments->sigmas,
      "Kernel width(s) in standardised units: one value or a list (default: the method's grid; "
      "lscde, rkde 0.01 … 10; ekde, nwcde, sacde, salscde, fw-* 20 values 0.01 … 2)"));
  specific.push_back(command->add_option(
      "--lambda", arguments->lambdas,
      "lscde, sacde, salscde, fw-lscde: regularisation parameter(s), one value or a list "
      "(default: lscde 0.01 … 10, the others 20 values 0.01 … 2)"));
  specific.push_back(command->add_option(
      "--epsilon", arguments->epsilons,
      "ekde: radius (radii) of the input ball in standardised units (default: the SA-CDE "
      "paper's 20 balls, radii 0.1 … 2.24)"));
  specific.push_back(command->add_option(
      "--bandwidth", arguments->bandwidths,
      "kcde: fixed bandwidths in standardised units, one per --x column then one per --y "
      "column (default: chosen by leave-one-out likelihood)"));
  specific.push_back(command->add_option(
      "--trend", arguments->trend,
      "kcde: centre the output kernels on the outputs (none) or on their residuals around a "
      "least-squares line (linear) (default none)"));
  specific.push_back(command->add_option(
      "--n-centers", arguments->n_centers,
      "lscde, nwcde, sacde, salscde, fw-*: number of kernel centres (default 100)"));
  specific.push_back(
      command->add_option("--folds", arguments->folds,
                          "Cross-validation folds, used when more than one candidate (default 5)"));
  specific.push_back(command->add_option(
      "--cv-loss", arguments->cv_loss,
      "lscde: cross-validation loss, kl (negative log-likelihood) or sq (default kl)"));
  specific.push_back(command->add_option(
      "--dz", arguments->dz,
      "lsce, lsce-ekde, lsmi-lscde, lsmi-ekde: dimension d_z of the projection, 0 to choose it "
      "by cross-validation (default 0)"));
  specific.push_back(command->add_option(
      "--restarts", arguments->restarts,
      "lsce, lsce-ekde, lsmi-lscde, lsmi-ekde: random starts of the subspace search (default "
      "20)"));
  add_seed_option(*command, arguments->seed, "Seed of centres, folds and --holdout (default 0)");
  command->add_option("--threads", arguments->threads, "OpenMP threads, 0 for the default");
  specific.push_back(
      command->add_option("--unlabeled", arguments->unlabeled_path,
                          "lscde: CSV file of extra inputs without outputs (same x column names)"));
  CLI::Option* holdout =
      command->add_option("--holdout", arguments->holdout_fraction,
                          "Fraction of rows to hold out and score the fit on, in (0, 1)");
  command->add_option("--out", arguments->out_path, "Write the model to this JSON file");
  command->add_flag("--no-header", arguments->no_header,
                    "The CSV files have no header line; columns are numbered 0, 1, …");
  command->callback([arguments, holdout, specific] {
    std::vector<std::string> given;
    for (const CLI::Option* option : specific) {
      if (option->count() > 0) given.push_back(option->get_name());
    }
    run_fit(*arguments, holdout->count() > 0, given);
  });
}

}  // namespace cdens::cli

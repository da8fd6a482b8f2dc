// cdens density fit|score|grid|sample|info: unconditional density models p(x), the diagonal
// Gaussian mixtures of `cdens density fit`. `fit` is in command_density_fit.cpp; the queries,
// each a few lines over GaussianMixture, are here.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cdens/core/error.hpp"
#include "cdens/core/rng.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

constexpr const char* kModelHelp = "Model file written by cdens density fit";

/// --tolerance of the queries of a mixture with shared widths (a Parzen window).
void add_tolerance_option(CLI::App& command, double& tolerance) {
  command
      .add_option("--tolerance", tolerance,
                  "Largest error of each log-density of a Parzen window (kernel sums by tree or "
                  "binned FFT within it; 0: exact)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

struct DensityScoreArguments {
  std::string model_path;
  std::string data_path;
  std::string columns;  // empty: the model's variable names
  std::string out_path;
  bool no_header = false;
  double tolerance = DensityQuery{}.log_tolerance;
};

void run_density_score(const DensityScoreArguments& arguments) {
  const DensityModel model = load_density_model_file(arguments.model_path);
  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const Matrix x = choose_columns(table, arguments.columns, "--columns", model.names).values;
  DensityQuery query;
  query.log_tolerance = arguments.tolerance;
  const Vector log_densities = model.mixture.log_pdf(x, query);
  if (!arguments.out_path.empty()) {
    write_table(arguments.out_path, {"log_density"}, log_densities.transpose());
  }
  const double mean_log_likelihood = log_densities.mean();
  // Full precision: scripts compare these numbers.
  std::cout << "n: " << x.cols() << '\n'
            << "mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
            << "total_log_likelihood: " << format_number(log_densities.sum()) << '\n'
            << "nll: " << format_number(-mean_log_likelihood) << '\n'
            << "kernel_sums: " << query.path << '\n'
            << std::flush;
}

struct DensityGridArguments {
  std::string model_path;
  std::vector<std::string> axes;  // one START:STOP:COUNT per dimension
  std::string out_path;
  double tolerance = DensityQuery{}.log_tolerance;
};

void run_density_grid(const DensityGridArguments& arguments) {
  const DensityModel model = load_density_model_file(arguments.model_path);
  const Index dimension = model.mixture.dimension();
  if (static_cast<Index>(arguments.axes.size()) != dimension) {
    throw InvalidArgument("give one --grid per dimension: the model's variables (" +
                          join(model.names, ",") + ") are " + std::to_string(dimension) + ", got " +
                          std::to_string(arguments.axes.size()));
  }
  std::vector<GridAxis> axes;
  for (const auto& spec : arguments.axes) axes.push_back(parse_grid_axis(spec, "--grid"));
  // The output table holds the grid and one density per point.
  const Matrix grid = cartesian_grid(axes, "--grid", static_cast<double>(dimension) + 2.0);
  Matrix rows(dimension + 1, grid.cols());
  rows.topRows(dimension) = grid;
  DensityQuery query;
  query.log_tolerance = arguments.tolerance;
  rows.bottomRows(1) = model.mixture.log_pdf(grid, query).array().exp().transpose();
  std::vector<std::string> names = model.names;
  names.push_back("density");
  write_table(arguments.out_path, names, rows);
}

struct DensitySampleArguments {
  std::string model_path;
  Index n = 0;
  std::uint64_t seed = 0;
  std::string out_path;
};

void run_density_sample(const DensitySampleArguments& arguments) {
  const DensityModel model = load_density_model_file(arguments.model_path);
  // The draws and the table written from them.
  require_draw_count(arguments.n, 2.0 * static_cast<double>(model.mixture.dimension()));
  Rng rng(arguments.seed);
  write_table(arguments.out_path, model.names, model.mixture.sample(arguments.n, rng));
}

void run_density_info(const std::string& model_path) {
  const DensityModel model = load_density_model_file(model_path);
  const GaussianMixture& mixture = model.mixture;
  std::ostringstream out;
  out << "method: " << model.report.method << '\n'
      << "variables: " << join(model.names, ",") << '\n'
      << "dimension: " << mixture.dimension() << '\n'
      << "n_kernels: " << mixture.n_components() << '\n';
  const Vector mean = mixture.mean();
  const Matrix covariance = mixture.covariance();
  for (Index d = 0; d < mixture.dimension(); ++d) {
    out << "mean_" << model.names[static_cast<std::size_t>(d)] << ": " << format_short(mean(d))
        << '\n'
        << "sd_" << model.names[static_cast<std::size_t>(d)] << ": "
        << format_short(std::sqrt(covariance(d, d))) << '\n';
  }
  print_fit_report(out, model.report);
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_density_command(CLI::App& app) {
  CLI::App* density =
      app.add_subcommand("density", "Unconditional densities p(x): fit, score, grid, sample, info");
  density->require_subcommand(1);
  add_density_fit_command(*density);

  auto score = std::make_shared<DensityScoreArguments>();
  CLI::App* score_command =
      density->add_subcommand("score", "Log-likelihood of a density model on data");
  score_command->add_option("model", score->model_path, kModelHelp)->required();
  score_command->add_option("data", score->data_path, "CSV file with the model's columns")
      ->required();
  score_command->add_option("--columns", score->columns,
                            "Columns to score (default: the model's names)");
  score_command->add_option("--out", score->out_path,
                            "Also write log p(x) of every row to this CSV file");
  score_command->add_flag("--no-header", score->no_header, "The CSV file has no header line");
  add_tolerance_option(*score_command, score->tolerance);
  score_command->callback([score] { run_density_score(*score); });

  auto grid = std::make_shared<DensityGridArguments>();
  CLI::App* grid_command =
      density->add_subcommand("grid", "Density p(x) on a regular grid, one CSV row per point");
  grid_command->add_option("model", grid->model_path, kModelHelp)->required();
  // One value per occurrence, so that a repeated --grid adds an axis and never swallows the
  // arguments that follow.
  grid_command
      ->add_option("--grid", grid->axes,
                   "START:STOP:COUNT, once per dimension (first dimension varies fastest)")
      ->required()
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  grid_command->add_option("--out", grid->out_path, "Write the CSV here instead of stdout");
  add_tolerance_option(*grid_command, grid->tolerance);
  grid_command->callback([grid] { run_density_grid(*grid); });

  auto sample = std::make_shared<DensitySampleArguments>();
  CLI::App* sample_command = density->add_subcommand("sample", "Draw samples from p(x)");
  sample_command->add_option("model", sample->model_path, kModelHelp)->required();
  sample_command->add_option("--n", sample->n, "Number of draws")->required();
  add_seed_option(*sample_command, sample->seed, "Seed of the draws (default 0)");
  sample_command->add_option("--out", sample->out_path, "Write the CSV here instead of stdout");
  sample_command->callback([sample] { run_density_sample(*sample); });

  auto info_path = std::make_shared<std::string>();
  CLI::App* info_command = density->add_subcommand("info", "Describe a density model file");
  info_command->add_option("model", *info_path, kModelHelp)->required();
  info_command->callback([info_path] { run_density_info(*info_path); });
}

}  // namespace cdens::cli

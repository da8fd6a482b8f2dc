// cdens score MODEL.json DATA.csv: the mean log-likelihood of a model on labelled data.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cdens/core/metrics.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

struct ScoreArguments {
  std::string model_path;
  std::string data_path;
  std::string x_columns;  // empty: the model's x names
  std::string y_columns;  // empty: the model's y names
  bool no_header = false;
};

void run_score(const ScoreArguments& arguments) {
  const ConditionalModel model = load_model_file(arguments.model_path).model;
  const CsvTable table = load_table(arguments.data_path, arguments.no_header);
  const Matrix x = choose_columns(table, arguments.x_columns, "--x", model.x_names).values;
  const Matrix y = choose_columns(table, arguments.y_columns, "--y", model.y_names).values;
  const double mean_log_likelihood = cdens::mean_log_likelihood(model.mixture, x, y);
  // Full precision: scripts compare these numbers.
  std::cout << "n: " << x.cols() << '\n'
            << "mean_log_likelihood: " << format_number(mean_log_likelihood) << '\n'
            << "nll: " << format_number(-mean_log_likelihood) << '\n'
            << std::flush;
}

}  // namespace

void add_score_command(CLI::App& app) {
  auto arguments = std::make_shared<ScoreArguments>();
  CLI::App* command =
      app.add_subcommand("score", "Mean log-likelihood and NLL of a model on labelled data");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  command->add_option("data", arguments->data_path, "CSV file with x and y columns")->required();
  command->add_option("--x", arguments->x_columns, "Input columns (default: the model's names)");
  command->add_option("--y", arguments->y_columns, "Output columns (default: the model's names)");
  command->add_flag("--no-header", arguments->no_header, "The CSV file has no header line");
  command->callback([arguments] { run_score(*arguments); });
}

}  // namespace cdens::cli

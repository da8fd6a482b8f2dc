// cdens info MODEL.json: what a model file holds and how it was fitted.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "common.hpp"

namespace cdens::cli {
namespace {

void run_info(const std::string& model_path) {
  const ModelFile file = load_model_file(model_path);
  const ConditionalModel& model = file.model;
  std::ostringstream out;
  out << "method: " << model.report.method << '\n'
      << "format_version: " << file.format_version << '\n';
  print_variables(out, model.x_names, model.y_names);
  print_output_kinds(out, model);
  out << "n_components: " << model.mixture.n_components() << '\n';
  print_fit_report(out, model.report);
  print_feature_selection(out, model);
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto model_path = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("info", "Describe a model file");
  command->add_option("model", *model_path, "Model file written by cdens fit")->required();
  command->callback([model_path] { run_info(*model_path); });
}

}  // namespace cdens::cli

// cdens features MODEL.json [--path-out FILE]: which input features a feature-selecting fit
// (sacde, salscde, fw-*) kept, how much each mattered, and SA-CDE's regularisation path.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cdens/core/types.hpp"
#include "commands.hpp"
#include "io/csv.hpp"
#include "io/text.hpp"
#include "model_kinds.hpp"
#include "model_report.hpp"
#include "output_files.hpp"

namespace cdens::cli {
namespace {

struct FeaturesArguments {
  std::string model_path;
  std::string path_out;
};

void run_features(const FeaturesArguments& arguments) {
  const ModelFile file = load_model_for("features", arguments.model_path);
  const ConditionalModel& model = *file.conditional;
  if (!model.report.feature_selection) {
    throw InvalidArgument("the model was fitted by '" + model.report.method +
                          "', which selects no features (use sacde, salscde or fw-*)");
  }
  const FeatureSelection& selection = *model.report.feature_selection;
  std::ostringstream out;
  out << "method: " << model.report.method << '\n';
  print_feature_selection(out, model);
  out << "feature,importance,selected\n";
  for (Index d = 0; d < selection.importances.size(); ++d) {
    const bool kept = std::find(selection.selected.begin(), selection.selected.end(), d) !=
                      selection.selected.end();
    out << model.x_names[static_cast<std::size_t>(d)] << ','
        << format_number(selection.importances(d)) << ',' << (kept ? 1 : 0) << '\n';
  }
  if (selection.path) {
    out << "path_chosen_lambda: " << format_short(selection.path->chosen_lambda) << '\n';
    if (arguments.path_out.empty()) {
      out << "path: not written (no --path-out)\n";
    } else {
      // One row per λ: λ, then ‖α_d‖₂ of every feature.
      std::vector<std::string> names = {"lambda"};
      names.insert(names.end(), model.x_names.begin(), model.x_names.end());
      Matrix columns(names.size(), selection.path->lambdas.size());
      columns.row(0) = selection.path->lambdas.transpose();
      columns.bottomRows(selection.path->group_norms.rows()) = selection.path->group_norms;
      write_table(arguments.path_out, names, columns);
      out << "path: " << arguments.path_out << '\n';
    }
  } else if (!arguments.path_out.empty()) {
    throw InvalidArgument("--path-out: a '" + model.report.method +
                          "' fit has no regularisation path (sacde and salscde have one)");
  }
  std::cout << out.str() << std::flush;
}

}  // namespace

void add_features_command(CLI::App& app) {
  auto arguments = std::make_shared<FeaturesArguments>();
  CLI::App* command =
      app.add_subcommand("features", "Report the input features a sacde, salscde or fw-* fit kept");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  command->add_option(
      "--path-out", arguments->path_out,
      "Write the regularisation path (lambda, then ||alpha_d|| per feature) as CSV");
  command->callback([arguments] { run_features(*arguments); });
}

}  // namespace cdens::cli

// cdens info MODEL.json: what a model file holds and how it was fitted.

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "io/text.hpp"
#include "model_kinds.hpp"
#include "model_report.hpp"

namespace cdens::cli {
namespace {

void describe_conditional(std::ostream& out, const ModelFile& file) {
  const ConditionalModel& model = *file.conditional;
  out << "method: " << model.report.method << '\n'
      << "format_version: " << file.format_version << '\n';
  print_variables(out, model.x_names, model.y_names);
  print_output_kinds(out, model);
  out << "n_components: " << model.mixture.n_components() << '\n';
  print_fit_report(out, model.report);
  print_feature_selection(out, model);
}

void describe_density(std::ostream& out, const DensityModel& model) {
  const GaussianMixture& mixture = model.mixture;
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
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto model_path = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("info", "Describe a model file");
  command->add_option("model", *model_path, "Model file written by cdens fit")->required();
  command->callback([model_path] {
    const ModelFile file = load_model_for("info", *model_path);
    std::ostringstream out;
    if (file.density) {
      describe_density(out, *file.density);
    } else {
      describe_conditional(out, file);
    }
    std::cout << out.str() << std::flush;
  });
}

}  // namespace cdens::cli

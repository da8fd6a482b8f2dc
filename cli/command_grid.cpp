// cdens grid MODEL.json --x-values … --y-grid START:STOP:COUNT: the conditional density on a
// regular y grid for each x point, in long format (one CSV row per x point and grid point).

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cdens/core/error.hpp"
#include "common.hpp"

namespace cdens::cli {
namespace {

struct GridArguments {
  std::string model_path;
  InputPointOptions inputs;
  std::vector<std::string> y_axes;  // one START:STOP:COUNT per output dimension
  std::string out_path;
};

void run_grid(const GridArguments& arguments) {
  const ConditionalModel model = load_model_file(arguments.model_path).model;
  const Index input_dim = model.mixture.input_dim();
  const Index output_dim = model.mixture.output_dim();
  if (static_cast<Index>(arguments.y_axes.size()) != output_dim) {
    throw InvalidArgument("give one --y-grid per output dimension: the model's y (" +
                          join(model.y_names, ",") + ") has " + std::to_string(output_dim) +
                          ", got " + std::to_string(arguments.y_axes.size()));
  }
  std::vector<GridAxis> axes;
  for (const auto& spec : arguments.y_axes) axes.push_back(parse_grid_axis(spec, "--y-grid"));
  const Matrix x = read_input_points(model, arguments.inputs);
  // Per grid point: a density per x point and a row of the output table per x point.
  const Matrix y_grid = cartesian_grid(
      axes, "--y-grid",
      static_cast<double>(x.cols()) * static_cast<double>(input_dim + output_dim + 2));

  // densities(g, j) = p(y_grid_g | x_j).
  const Matrix densities = model.mixture.pdf_grid(x, y_grid);
  const Index grid_size = y_grid.cols();
  Matrix rows(input_dim + output_dim + 1, x.cols() * grid_size);
  for (Index j = 0; j < x.cols(); ++j) {
    auto block = rows.middleCols(j * grid_size, grid_size);
    block.topRows(input_dim).colwise() = x.col(j);
    block.middleRows(input_dim, output_dim) = y_grid;
    block.bottomRows(1) = densities.col(j).transpose();
  }
  std::vector<std::string> names = model.x_names;
  names.insert(names.end(), model.y_names.begin(), model.y_names.end());
  names.push_back("density");
  write_table(arguments.out_path, names, rows);
}

}  // namespace

void add_grid_command(CLI::App& app) {
  auto arguments = std::make_shared<GridArguments>();
  CLI::App* command =
      app.add_subcommand("grid", "Density p(y|x) on a regular y grid, long-format CSV");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  add_input_point_options(*command, arguments->inputs);
  // One value per occurrence, so that a repeated --y-grid adds an axis and never swallows the
  // arguments that follow.
  command
      ->add_option("--y-grid", arguments->y_axes,
                   "START:STOP:COUNT, once per output dimension (first dimension varies fastest)")
      ->required()
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->callback([arguments] { run_grid(*arguments); });
}

}  // namespace cdens::cli

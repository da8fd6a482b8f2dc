// cdens grid MODEL.json: the density on a regular grid — for a conditional or PRESS model p(y|x)
// on a y grid (--y-grid) at each x point (--x-values or --x-file), in long format (one CSV row per
// x point and grid point); for a density model p(x) on a grid of x (--grid), one row per point.

#include <CLI/CLI.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"
#include "commands.hpp"
#include "core/validate.hpp"
#include "input_points.hpp"
#include "io/text.hpp"
#include "kernel_sum_tolerance.hpp"
#include "model_kinds.hpp"
#include "output_files.hpp"
#include "table_cells.hpp"

namespace cdens::cli {
namespace {

/// One axis of a grid, written START:STOP:COUNT: COUNT evenly spaced values from START to STOP,
/// both included.
struct GridAxis {
  double start;
  double stop;
  Index count;
};

/// Parses START:STOP:COUNT given as `flag` (--y-grid, --grid); InvalidArgument naming it unless
/// START < STOP and COUNT is an integer ≥ 2.
GridAxis parse_grid_axis(const std::string& spec, const std::string& flag) {
  const std::string what = flag + " '" + spec + "'";
  const auto parts = split_list(spec, ':', what);
  if (parts.size() != 3) throw InvalidArgument(what + ": expected START:STOP:COUNT");
  const double start = parse_number(parts[0], what + " START");
  const double stop = parse_number(parts[1], what + " STOP");
  const double count = parse_number(parts[2], what + " COUNT");
  if (!(start < stop)) throw InvalidArgument(what + ": START must be smaller than STOP");
  // The upper bound only keeps the conversion to Index defined; memory runs out long before.
  if (count != std::floor(count) || count < 2 || count > 1e12) {
    throw InvalidArgument(what + ": COUNT must be an integer of at least 2");
  }
  return {start, stop, static_cast<Index>(count)};
}

/// Every point of the cartesian product of the axes' values as a d × (Π count) matrix, the first
/// axis varying fastest; InvalidArgument naming `flag` when the grid would not fit in memory
/// `per_point` times (the queries' results per grid point).
Matrix cartesian_grid(const std::vector<GridAxis>& axes, const std::string& flag,
                      double per_point) {
  double points = 1.0;
  for (const auto& axis : axes) points *= static_cast<double>(axis.count);
  // Checked before the product is formed as an Index, which it might overflow.
  require_memory_for(points * (static_cast<double>(axes.size()) + per_point), flag);
  const auto total = static_cast<Index>(points);
  Matrix grid(static_cast<Index>(axes.size()), total);
  for (Index point = 0; point < total; ++point) {
    Index rest = point;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const GridAxis& axis = axes[a];
      const Index step = rest % axis.count;
      rest /= axis.count;
      // The last value is STOP exactly, not STOP plus rounding error.
      grid(static_cast<Index>(a), point) =
          step == axis.count - 1
              ? axis.stop
              : axis.start + (axis.stop - axis.start) * static_cast<double>(step) /
                                 static_cast<double>(axis.count - 1);
    }
  }
  return grid;
}

struct GridArguments {
  std::string model_path;
  InputPointOptions inputs;
  std::vector<std::string> y_axes;  // conditional models: one START:STOP:COUNT per output
  std::vector<std::string> axes;    // density models: one START:STOP:COUNT per dimension
  std::string out_path;
  double tolerance = DensityQuery{}.log_tolerance;  // density models: of the kernel sums
};

void grid_conditional(const GridArguments& arguments, const ConditionalModel& model) {
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
  // The inputs' labels echoed, as predict and sample do (a y grid is of numbers, not labels).
  std::map<std::string, ColumnLabels> input_labels;
  for (const std::string& name : model.x_names) {
    if (const auto found = model.labels.find(name); found != model.labels.end()) {
      input_labels.insert(*found);
    }
  }
  write_table(arguments.out_path, names, rows, "", labels_of_names(names, input_labels));
}

void grid_density(const GridArguments& arguments, const DensityModel& model) {
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

/// Adds a repeatable START:STOP:COUNT option: one value per occurrence, so that a repeated flag
/// adds an axis and never swallows the arguments that follow.
CLI::Option* add_axis_option(CLI::App& command, const std::string& flag,
                             std::vector<std::string>& axes, const std::string& description) {
  return command.add_option(flag, axes, description)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace

void add_grid_command(CLI::App& app) {
  using F = MethodFamily;
  auto arguments = std::make_shared<GridArguments>();
  CLI::App* command = app.add_subcommand(
      "grid", "Density on a regular grid: p(y|x) per x point (long-format CSV) or p(x)");
  command->add_option("model", arguments->model_path, "Model file written by cdens fit")
      ->required();
  add_input_point_options(*command, arguments->inputs);
  const std::vector<FamilyOption> family_options = {
      {arguments->inputs.values_option, {F::conditional, F::regression}},
      {arguments->inputs.file_option, {F::conditional, F::regression}},
      {arguments->inputs.missing_option, {F::conditional, F::regression}},
      {add_axis_option(*command, "--y-grid", arguments->y_axes,
                       "Conditional models: START:STOP:COUNT, once per output dimension (first "
                       "dimension varies fastest)"),
       {F::conditional, F::regression}},
      {add_axis_option(*command, "--grid", arguments->axes,
                       "Density models: START:STOP:COUNT, once per dimension (first dimension "
                       "varies fastest)"),
       {F::density}},
      {add_kernel_sum_tolerance(*command, arguments->tolerance), {F::density}},
  };
  command->add_option("--out", arguments->out_path, "Write the CSV here instead of stdout");
  command->callback([arguments, family_options] {
    const ModelFile file = load_model_for("grid", arguments->model_path, family_options);
    if (file.density) return grid_density(*arguments, *file.density);
    grid_conditional(*arguments, *file.conditional);
  });
}

}  // namespace cdens::cli

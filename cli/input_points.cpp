#include "input_points.hpp"

#include <CLI/CLI.hpp>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "io/text.hpp"
#include "table_cells.hpp"

namespace cdens::cli {

void add_input_point_options(CLI::App& command, InputPointOptions& options) {
  options.values_option = command.add_option(
      "--x-values", options.values,
      "Conditional models: x points, '1,2,3' for a one-dimensional x, '1,2;3,4' (points "
      "separated by ';') otherwise");
  options.file_option =
      command.add_option("--x-file", options.file,
                         "Conditional models: CSV file holding the model's x columns (by name), "
                         "one point per row");
}

Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options) {
  if (options.values.empty() == options.file.empty()) {
    throw InvalidArgument("give the x points with exactly one of --x-values and --x-file");
  }
  if (!options.file.empty()) {
    CsvTable table = load_table(options.file, false);
    code_model_labels(table, model);
    Matrix x = choose_columns(table, model.x_names).values;
    warn_of_extrapolation(table.source, model, x);
    return x;
  }
  const Index dimension = model.mixture.input_dim();
  // For a one-dimensional x a comma separates points; otherwise it separates coordinates.
  const bool point_per_comma = dimension == 1 && options.values.find(';') == std::string::npos;
  const auto points = split_list(options.values, point_per_comma ? ',' : ';', "--x-values");
  Matrix x(dimension, static_cast<Index>(points.size()));
  for (std::size_t j = 0; j < points.size(); ++j) {
    const auto coordinates = parse_number_list(points[j], "--x-values");
    if (static_cast<Index>(coordinates.size()) != dimension) {
      throw InvalidArgument("--x-values: the point '" + points[j] + "' has " +
                            std::to_string(coordinates.size()) + " values but the model's x (" +
                            join(model.x_names, ",") + ") has " + std::to_string(dimension));
    }
    for (Index i = 0; i < dimension; ++i) {
      x(i, static_cast<Index>(j)) = coordinates[static_cast<std::size_t>(i)];
    }
  }
  warn_of_extrapolation("--x-values", model, x, "point");
  return x;
}

}  // namespace cdens::cli

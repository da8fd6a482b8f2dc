#include "input_points.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "cdens/core/types.hpp"
#include "columns.hpp"
#include "io/text.hpp"
#include "table_cells.hpp"

namespace cdens::cli {
namespace {

/// The value of input d of a --x-values point: a label of a labelled input (by the rule of the
/// data's cells, label_of_text) as its code, else a number.
double input_value(const ConditionalModel& model, Index d, const std::string& text,
                   const std::string& point) {
  const std::string& name = model.x_names[static_cast<std::size_t>(d)];
  const auto labels = model.labels.find(name);
  if (labels == model.labels.end()) {
    return parse_number(text, "--x-values point '" + point + "', input '" + name + "'");
  }
  const ColumnLabels& known = labels->second;
  const auto found = std::find(known.begin(), known.end(), label_of_text(text));
  if (found == known.end()) {
    throw InvalidArgument("--x-values point '" + point + "': '" + text +
                          "' is not a label of input '" + name + "' (" + join(known, ", ") + ")");
  }
  return static_cast<double>(found - known.begin());
}

}  // namespace

void add_input_point_options(CLI::App& command, InputPointOptions& options) {
  options.values_option = command.add_option(
      "--x-values", options.values,
      "Conditional models: x points, '1,2,3' for a one-dimensional x, '1,2;3,4' (points "
      "separated by ';') otherwise; a labelled input takes its labels ('Oslo')");
  options.file_option =
      command.add_option("--x-file", options.file,
                         "Conditional models: CSV file holding the model's x columns (by name), "
                         "one point per row");
  options.missing_option = add_missing_option(command, options.drop_missing);
}

Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options) {
  if (options.values.empty() == options.file.empty()) {
    throw InvalidArgument("give the x points with exactly one of --x-values and --x-file");
  }
  if (!options.file.empty()) {
    CsvTable table = load_table(options.file, false);
    code_model_labels(table, model);
    drop_rows_with_missing_if(options.drop_missing, table, {model.x_names});
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
    const auto coordinates = split_list(points[j], ',', "--x-values");
    if (static_cast<Index>(coordinates.size()) != dimension) {
      throw InvalidArgument("--x-values: the point '" + points[j] + "' has " +
                            std::to_string(coordinates.size()) + " values but the model's x (" +
                            join(model.x_names, ",") + ") has " + std::to_string(dimension));
    }
    for (Index i = 0; i < dimension; ++i) {
      x(i, static_cast<Index>(j)) =
          input_value(model, i, coordinates[static_cast<std::size_t>(i)], points[j]);
    }
  }
  warn_of_extrapolation("--x-values", model, x, "point");
  return x;
}

}  // namespace cdens::cli

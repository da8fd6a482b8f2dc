#pragma once
// The x points at which `grid` and `sample` query a conditional model: --x-values or --x-file.

#include <string>

#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace cdens::cli {

/// Where the x points of `grid` and `sample` come from.
struct InputPointOptions {
  std::string values;  ///< --x-values: "1,2,3" for d_x = 1, "1,2;3,4" (points split by ';')
  std::string file;    ///< --x-file: a CSV file holding the model's x columns by name
  const CLI::Option* values_option = nullptr;
  const CLI::Option* file_option = nullptr;
};

/// Adds --x-values and --x-file to a subcommand.
void add_input_point_options(CLI::App& command, InputPointOptions& options);

/// The x points (d_x × m) given by exactly one of --x-values and --x-file, with a warning where
/// some lie outside the inputs the model was fitted on (warn_of_extrapolation).
Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options);

}  // namespace cdens::cli

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
  std::string values;         ///< --x-values: "1,2,3" for d_x = 1, "1,2;3,4" (points split by ';')
  std::string file;           ///< --x-file: a CSV file holding the model's x columns by name
  bool drop_missing = false;  ///< --missing drop: rows of --x-file with a missing x left out
  const CLI::Option* values_option = nullptr;
  const CLI::Option* file_option = nullptr;
  const CLI::Option* missing_option = nullptr;
};

/// Adds --x-values, --x-file and --missing to a subcommand.
void add_input_point_options(CLI::App& command, InputPointOptions& options);

/// The x points (d_x × m) given by exactly one of --x-values and --x-file (labels of a labelled
/// input as their codes; rows with a missing x left out under --missing drop), with a warning
/// where some lie outside the inputs the model was fitted on (warn_of_extrapolation).
/// InvalidArgument at a label the model never saw (a discrete input's number that is none of its
/// levels is answered with its kernel's weight for unequal values, as predict answers it).
Matrix read_input_points(const ConditionalModel& model, const InputPointOptions& options);

}  // namespace cdens::cli

#pragma once
// Where a fit runs and whom it tells: shared by every estimator's fit function.

#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/progress.hpp"

namespace cdens {

/// Where a fit runs and whom it tells.
struct FitContext {
  const Communicator& communicator = local_communicator();
  Progress& progress = silent_progress();
  /// The names of the columns of (x, y), inputs first, for messages about a column (the CSV
  /// header on the command line); empty: "x0", …, "y0", ….
  std::vector<std::string> column_names = {};
};

}  // namespace cdens

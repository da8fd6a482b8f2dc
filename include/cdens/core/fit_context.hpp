#pragma once
// Where a fit runs and whom it tells: shared by every estimator's fit function.

#include "cdens/core/communicator.hpp"
#include "cdens/core/progress.hpp"

namespace cdens {

/// Where a fit runs and whom it tells.
struct FitContext {
  const Communicator& communicator = local_communicator();
  Progress& progress = silent_progress();
};

}  // namespace cdens

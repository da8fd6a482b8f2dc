#include <cstdlib>

#include "cdens/core/mpi_session.hpp"

namespace cdens {

bool started_by_mpi_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

}  // namespace cdens

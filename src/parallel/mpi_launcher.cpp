#include <cstdlib>
#include <string_view>

#include "cdens/core/communicator.hpp"

namespace cdens {

bool started_by_mpi_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) return true;
  // A process that initialised MPI alone (a singleton: a Python script that imported mpi4py)
  // sets PMIX_RANK too, and its children inherit it; OpenMPI marks that environment with
  // OMPI_MCA_ess=singleton. A child started so was not started by a launcher.
  const char* module = std::getenv("OMPI_MCA_ess");
  const bool singleton_parent = module != nullptr && std::string_view(module) == "singleton";
  return std::getenv("PMIX_RANK") != nullptr && !singleton_parent;
}

}  // namespace cdens

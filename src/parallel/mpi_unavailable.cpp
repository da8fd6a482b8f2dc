// The MPI session of a cdens built without MPI (CDENS_WITH_MPI=OFF): it refuses to start.

#include <cstdlib>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

bool mpi_available() { return false; }

MpiSession::MpiSession() {
  throw InvalidArgument(
      "this cdens was built without MPI: rebuild it with -DCDENS_WITH_MPI=ON to fit on many "
      "processes");
}

MpiSession::~MpiSession() = default;

void MpiSession::abort(int status) const { std::exit(status); }

}  // namespace cdens

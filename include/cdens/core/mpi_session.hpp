#pragma once
// MPI for a program whose fits run on many processes (`mpirun -n K program`): the session
// initialises MPI and hands out the Communicator of all its processes, which a fit takes in its
// FitContext. Only a cdens built with CDENS_WITH_MPI=ON has it; elsewhere the session refuses
// with InvalidArgument.

#include <memory>

#include "cdens/core/communicator.hpp"

namespace cdens {

/// Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE, and
/// PMIx launchers PMIX_RANK): a program started alone need not initialise MPI. The child of a
/// process that initialised MPI alone (OMPI_MCA_ess=singleton, which sets PMIX_RANK too) was not.
bool started_by_mpi_launcher();

/// Whether this build of cdens has MPI (CDENS_WITH_MPI=ON).
bool mpi_available();

/// MPI from construction to destruction: MPI_Init_thread with MPI_THREAD_FUNNELED (only the
/// thread that calls a fit calls MPI; OpenMP threads compute between the calls) and
/// MPI_Finalize. One per process, for the whole run: MPI cannot be initialised twice.
class MpiSession {
 public:
  /// InvalidArgument when cdens was built without MPI.
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// Every process of the run (a duplicate of MPI_COMM_WORLD, so that the fits' collectives
  /// never meet the program's own).
  const Communicator& world() const { return *world_; }

  /// Ends every process of the run with `status` (MPI_Abort): for a failure on one rank that the
  /// others cannot learn of, because they wait in a collective call it will never make.
  [[noreturn]] void abort(int status) const;

 private:
  std::unique_ptr<Communicator> world_;
};

}  // namespace cdens

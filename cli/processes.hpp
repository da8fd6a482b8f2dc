#pragma once
// The processes one run of the command spans: every process mpirun started (`mpirun -n K cdens
// fit …`, when cdens is built with CDENS_WITH_MPI), or this process alone. `fit` runs on many
// processes (rank 0 prints and writes the model, and every rank reads its own rows), and so do
// `predict`, `evaluate` and `sample` of a KCDE model (model_of_processes.hpp); no other verb.

#include <cstdint>
#include <string>

#include "cdens/core/communicator.hpp"

namespace cdens::cli {

/// The processes of this run: set once by main(), the local communicator until then. Every
/// collective call through it is counted (bytes_between_processes).
const Communicator& processes();
void set_processes(const Communicator& communicator);

/// The payload this process has sent and received through processes() (CountingCommunicator).
std::uint64_t bytes_between_processes();

/// InvalidArgument when the run spans more than one process: `command` runs on one.
void require_one_process(const std::string& command);

}  // namespace cdens::cli

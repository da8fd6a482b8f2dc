#include "processes.hpp"

#include "cdens/core/error.hpp"

namespace cdens::cli {
namespace {
const Communicator* run_processes = &local_communicator();
}

const Communicator& processes() { return *run_processes; }

void set_processes(const Communicator& communicator) { run_processes = &communicator; }

void require_one_process(const std::string& command) {
  if (processes().size() > 1) {
    throw InvalidArgument(command + " runs on one process: start it without mpirun (only " +
                          "`cdens fit` runs on many)");
  }
}

}  // namespace cdens::cli

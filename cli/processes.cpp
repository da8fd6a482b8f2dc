#include "processes.hpp"

#include <memory>

#include "cdens/core/types.hpp"
#include "parallel/counting_communicator.hpp"

namespace cdens::cli {
namespace {
std::unique_ptr<CountingCommunicator> run_processes =
    std::make_unique<CountingCommunicator>(local_communicator());
}

const Communicator& processes() { return *run_processes; }

void set_processes(const Communicator& communicator) {
  run_processes = std::make_unique<CountingCommunicator>(communicator);
}

std::uint64_t bytes_between_processes() { return run_processes->bytes(); }

void require_one_process(const std::string& command) {
  if (processes().size() > 1) {
    throw InvalidArgument(command + " runs on one process: start it without mpirun (only " +
                          "`cdens fit`, and `predict`, `evaluate` and `sample` of a kcde model, " +
                          "run on many)");
  }
}

}  // namespace cdens::cli

#include "cdens/core/communicator.hpp"

namespace cdens {

const Communicator& local_communicator() {
  static const LocalCommunicator instance;
  return instance;
}

}  // namespace cdens

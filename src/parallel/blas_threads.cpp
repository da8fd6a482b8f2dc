// BLAS on one thread (docs/design.md, "Same answer"): cdens runs its own threads, and Debian's
// pthread OpenBLAS, the build CMakeLists.txt links, otherwise starts one thread per core for a
// large product, whose split of the columns changes its rounding.

#include "parallel/parallel.hpp"

extern "C" void openblas_set_num_threads(int threads);

namespace cdens {

void use_one_blas_thread() {
  // A function-local static: set once, by the first caller, whichever thread it is.
  static const bool set = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  static_cast<void>(set);
}

}  // namespace cdens

// What the package does when it loads, besides registering its entry points (src/init.c): the
// library's messages advise the R functions and arguments.

#include "core/vector_instruction_set.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "methods/r_spelling.hpp"

extern "C" void cdens_r_initialize() { cdens::set_message_spelling(cdens::r_spelling()); }

extern "C" SEXP cdens_version() {
  return cdens::r::guarded([] { return Rf_mkString(CDENS_VERSION); });
}

extern "C" SEXP cdens_vector_instruction_set() {
  return cdens::r::guarded([] { return Rf_mkString(cdens::vector_instruction_set().c_str()); });
}

// How the messages of a fit from the R package spell their advice (r_spelling.hpp): each method
// by its R function, each option by its R argument, values as R writes them.

#include "methods/r_spelling.hpp"

#include "cdens/methods/registry.hpp"
#include "methods/keyword_spelling.hpp"

namespace cdens {

const Spelling& r_spelling() {
  static const KeywordSpelling spelling({" = ", "\"", "c(", ")", "c(", ")", "TRUE", "FALSE", true},
                                        &r_function_of, &r_name_of);
  return spelling;
}

}  // namespace cdens

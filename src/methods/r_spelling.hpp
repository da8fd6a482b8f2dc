#pragma once
// The R package's spelling of the library's advice (cdens/core/spelling.hpp).

#include "cdens/core/spelling.hpp"

namespace cdens {

/// A method as its R function with options as arguments ("cde_linear()",
/// "cde_kcde(ordered = \"year\")"), an option as its R argument (r_name_of) with its value as R
/// writes it for the option's type ("trend = \"linear\"", "discrete = c(\"a\", \"b\")",
/// "n_jobs = 2"). The R package makes it the spelling of its process's messages when it loads.
const Spelling& r_spelling();

}  // namespace cdens

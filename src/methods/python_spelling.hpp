#pragma once
// The Python package's spelling of the library's advice (cdens/core/spelling.hpp).

#include "cdens/core/spelling.hpp"

namespace cdens {

/// A method as its class, with options as keywords ("LinearGaussianCDE()",
/// "KernelCDE(ordered=['year'])"), an option as its parameter (python_name_of) with its value as
/// Python writes it for the option's type ("trend='linear'", "discrete=['year']", "cv=5"). The
/// Python module makes it the spelling of its process's messages when it loads.
const Spelling& python_spelling();

}  // namespace cdens

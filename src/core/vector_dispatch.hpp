#pragma once
// The choice among the copies of the hot loops (src/core/vector_instruction_set.hpp), for the
// tests that compare them.

#include <string>
#include <vector>

namespace cdens {

/// The copies this build compiled, narrowest first.
std::vector<std::string> compiled_vector_instruction_sets();

/// Whether this CPU (and its operating system) can run the copy `name`.
bool cpu_runs_vector_instruction_set(const std::string& name);

/// Runs copy `name` from now on. Not safe while another thread runs library code. InvalidArgument
/// for a copy the build lacks or the CPU cannot run.
void use_vector_instruction_set(const std::string& name);

}  // namespace cdens

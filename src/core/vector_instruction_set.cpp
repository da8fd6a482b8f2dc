#include "core/vector_instruction_set.hpp"

#include <cstdlib>

#include "cdens/core/types.hpp"
#include "core/vector_dispatch.hpp"
#include "io/text.hpp"

// The copy the dispatched functions jump to (the trampolines that cmake/vector_isa_objects.sh
// writes read it): an index into compiled_vector_instruction_sets(). It starts at the baseline
// copy, which runs anywhere, and is set once, when the library loads.
extern "C" {
__attribute__((visibility("hidden"))) int cdens_vector_isa_index = 0;
}

namespace cdens {
namespace {

// CDENS_VECTOR_COPIES (set by CMakeLists.txt): the copies, narrowest first and separated by
// commas, in the order of the trampolines' tables.
const std::vector<std::string>& copies() {
  static const std::vector<std::string> names =
      split_list(CDENS_VECTOR_COPIES, ',', "the copies of the vector loops");
  return names;
}

int position_of(const std::string& name) {
  const auto& names = copies();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string runnable_list() {
  std::vector<std::string> runnable;
  for (const std::string& name : copies()) {
    if (cpu_runs_vector_instruction_set(name)) runnable.push_back(name);
  }
  return join(runnable, ", ");
}

/// The copy to run: CDENS_ISA's, else the widest the CPU runs; and why CDENS_ISA was refused.
struct Choice {
  int index = 0;
  std::string refusal;
};

Choice choose_at_load() {
  const char* requested = std::getenv("CDENS_ISA");
  if (requested == nullptr || *requested == '\0') {
    int widest = 0;
    for (std::size_t i = 0; i < copies().size(); ++i) {
      if (cpu_runs_vector_instruction_set(copies()[i])) widest = static_cast<int>(i);
    }
    return {widest, {}};
  }
  const std::string name = requested;
  const int index = position_of(name);
  if (index < 0) {
    return {0, "CDENS_ISA=" + name + " names no copy of this build's vector loops: it has " +
                   join(copies(), ", ") + " (unset CDENS_ISA to run the widest this CPU can)"};
  }
  if (!cpu_runs_vector_instruction_set(name)) {
    return {0, "CDENS_ISA=" + name + ": this CPU cannot run that copy of the vector loops; it " +
                   "runs " + runnable_list()};
  }
  return {index, {}};
}

const Choice& choice() {
  static const Choice chosen = choose_at_load();
  return chosen;
}

// Before main and before any constructor of default priority, so every call of a dispatched
// function, a static initialiser's included, runs the chosen copy.
__attribute__((constructor(101))) void choose_vector_instruction_set() {
  cdens_vector_isa_index = choice().index;
}

}  // namespace

std::vector<std::string> compiled_vector_instruction_sets() { return copies(); }

bool cpu_runs_vector_instruction_set(const std::string& name) {
  if (name == "baseline" || name == "native") return true;
#if defined(__x86_64__)
  // libgcc reads the CPU's features (and whether the OS saves the AVX and AVX-512 registers) in
  // its own constructor, which may not have run yet.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (name == "avx2") return avx2;
  if (name == "avx512") {
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  }
#endif
  return false;
}

void use_vector_instruction_set(const std::string& name) {
  const int index = position_of(name);
  if (index < 0) {
    throw InvalidArgument("no copy of the vector loops is named " + name + ": this build has " +
                          join(copies(), ", "));
  }
  if (!cpu_runs_vector_instruction_set(name)) {
    throw InvalidArgument("this CPU cannot run the " + name + " copy of the vector loops");
  }
  cdens_vector_isa_index = index;
}

std::string vector_instruction_set() {
  if (!choice().refusal.empty()) throw InvalidArgument(choice().refusal);
  return copies()[static_cast<std::size_t>(cdens_vector_isa_index)];
}

}  // namespace cdens

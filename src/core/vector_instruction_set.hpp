#pragma once
// The vector instructions the library's hot loops run with.

#include <string>

namespace cdens {

/// The copy of the hot loops (kernel exponentials, distance blocks, E-steps) that runs. A portable
/// x86-64 build (CDENS_ISA_DISPATCH) compiles them three times, for "baseline" x86-64 (SSE2),
/// "avx2" (AVX2 and FMA) and "avx512" (AVX-512 F, VL, DQ and BW), and chooses the widest this CPU
/// has when the library loads, unless the environment variable CDENS_ISA names one. Other builds
/// compile one copy: "native" (CDENS_NATIVE, -march=native) or "baseline". InvalidArgument when
/// CDENS_ISA named a copy the build lacks or the CPU cannot run (the baseline copy then runs).
std::string vector_instruction_set();

}  // namespace cdens

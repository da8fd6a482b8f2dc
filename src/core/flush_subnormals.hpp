#pragma once
// Arithmetic on subnormal numbers (below 2.2·10⁻³⁰⁸) costs about a hundred times a normal
// operation on x86. Dense linear algebra on kernel matrices with short length scales produces
// them in bulk (products of tiny kernel values inside the BLAS kernels) although they change no
// result by more than 10⁻³⁰⁸. This guard makes the calling thread read and write them as zero for
// its lifetime and restores the thread's previous mode after: it covers the BLAS calls made on
// this thread, so it belongs inside a parallel task whose BLAS runs single-threaded.

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace cdens {

class FlushSubnormals {
 public:
#if defined(__SSE2__)
  // MXCSR bits: flush-to-zero (0x8000) for results, denormals-are-zero (0x0040) for operands.
  FlushSubnormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8040u); }
  ~FlushSubnormals() { _mm_setcsr(saved_); }
#else
  FlushSubnormals() = default;
#endif
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;

 private:
#if defined(__SSE2__)
  unsigned int saved_;
#endif
};

}  // namespace cdens

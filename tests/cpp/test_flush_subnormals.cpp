// The subnormal guard of the dense kernel-matrix fits: inside it a subnormal result is 0 and a
// subnormal operand reads as 0; after it the thread computes them again.

#include <gtest/gtest.h>

#include <cfloat>

#include "core/flush_subnormals.hpp"

namespace cdens {
namespace {

TEST(FlushSubnormals, SubnormalsAreZeroInsideTheGuardAndComputedAfterIt) {
#if defined(__SSE2__)
  // volatile: every product is computed at run time under the thread's mode, never folded.
  volatile double small = 1e-200;
  volatile double smaller = 1.1e-110;  // small × smaller ≈ 1.1·10⁻³¹⁰: a subnormal result
  volatile double subnormal = 3e-310;
  volatile double large = 1e10;
  ASSERT_LT(3e-310, DBL_MIN);
  ASSERT_GT(small * smaller, 0.0);
  {
    const FlushSubnormals flush;
    EXPECT_EQ(small * smaller, 0.0);          // flushed to zero as it is produced
    EXPECT_EQ(subnormal * large, 0.0);        // read as zero
    EXPECT_DOUBLE_EQ(small * large, 1e-190);  // normal numbers untouched
  }
  EXPECT_GT(small * smaller, 0.0);
  EXPECT_NEAR(subnormal * large, 3e-300, 1e-312);  // a subnormal keeps fewer digits
#else
  GTEST_SKIP() << "the guard acts on x86 only";
#endif
}

}  // namespace
}  // namespace cdens

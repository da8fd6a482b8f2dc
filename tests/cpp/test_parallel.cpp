// parallel_for: every task runs once on either path (a parallel region, or the calling thread for
// one task or one thread), a task sees one OpenMP thread for its own nested work, the caller's
// thread count is restored, and a task's exception reaches the caller.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "parallel/parallel.hpp"

namespace cdens {
namespace {

struct Case {
  int threads;
  Index count;
};

TEST(ParallelFor, EveryTaskRunsOnceWithOneNestedThreadAndTheCallersCountComesBack) {
  const int callers = omp_get_max_threads();
  for (const Case c : {Case{2, 7}, Case{2, 1}, Case{1, 7}, Case{3, 0}}) {
    std::vector<int> runs(static_cast<std::size_t>(c.count), 0);
    std::vector<int> nested(static_cast<std::size_t>(c.count), 0);
    parallel_for(c.threads, c.count, [&](Index i) {
      ++runs[static_cast<std::size_t>(i)];
      nested[static_cast<std::size_t>(i)] = omp_get_max_threads();
    });
    EXPECT_EQ(runs, std::vector<int>(static_cast<std::size_t>(c.count), 1))
        << c.threads << " threads, " << c.count << " tasks";
    EXPECT_EQ(nested, std::vector<int>(static_cast<std::size_t>(c.count), 1))
        << c.threads << " threads, " << c.count << " tasks";
    EXPECT_EQ(omp_get_max_threads(), callers);
  }
}

TEST(ParallelFor, ATasksExceptionReachesTheCallerOnEitherPath) {
  const int callers = omp_get_max_threads();
  for (const Case c : {Case{2, 5}, Case{2, 1}, Case{1, 5}}) {
    EXPECT_THROW(parallel_for(c.threads, c.count,
                              [&](Index i) {
                                if (i == c.count - 1) throw DataError("task failed");
                              }),
                 DataError)
        << c.threads << " threads, " << c.count << " tasks";
    EXPECT_EQ(omp_get_max_threads(), callers);
  }
}

}  // namespace
}  // namespace cdens

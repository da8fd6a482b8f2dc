// parallel_for: every task runs once on either path (a parallel region, or the calling thread for
// one task or one thread), a task sees one OpenMP thread for its own nested work, the caller's
// thread count is restored, and a task's exception reaches the caller. The default thread count
// leaves the processors that other runnable tasks keep busy.

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

TEST(DefaultThreads, LeaveTheProcessorsOtherRunnableTasksKeepBusy) {
  // /proc/loadavg's fourth field: runnable tasks of the machine (the caller among them) / all.
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "0.52 0.31 0.20 1/79 24034\n", 1), 2);  // idle
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "2.10 1.90 1.50 2/81 24101\n", 1), 1);
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "4.00 3.10 2.50 3/81 24101\n", 1), 1);  // never 0
  EXPECT_EQ(threads_beside_running_tasks(8, 16, "9.00 9.00 9.00 10/900 1\n", 1), 7);
  EXPECT_EQ(threads_beside_running_tasks(4, 16, "0.00 0.00 0.00 1/900 1\n", 1),
            4);  // at most `most`
  // This process's own runnable threads (its thread pools waking) are not other work.
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "1.00 1.00 1.00 3/81 1\n", 3), 2);
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "1.00 1.00 1.00 3/81 1\n", 2), 1);
  // Text that is not /proc/loadavg's leaves OpenMP's default as it is.
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "", 1), 2);
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "0.5 0.4 0.3 running", 1), 2);
  EXPECT_EQ(threads_beside_running_tasks(2, 2, "0.5 0.4 0.3 0/79 1", 1), 2);
}

TEST(DefaultThreads, AreBetweenOneAndOpenMPsDefaultAndOneInsideATask) {
  const int openmp_default = omp_get_max_threads();
  const int threads = resolve_threads(0);
  EXPECT_GE(threads, 1);
  EXPECT_LE(threads, openmp_default);
  EXPECT_EQ(resolve_threads(3), 3);  // a count the caller sets is kept
  std::vector<int> inside(4, 0);
  parallel_for(2, 4, [&](Index i) { inside[static_cast<std::size_t>(i)] = resolve_threads(0); });
  EXPECT_EQ(inside, std::vector<int>(4, 1));
}

}  // namespace
}  // namespace cdens

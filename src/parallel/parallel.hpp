#pragma once
// The one way cdens runs independent tasks on several threads.

#include <omp.h>

#include <exception>
#include <mutex>
#include <string>

#include "cdens/core/types.hpp"

namespace cdens {

/// Sets BLAS to one thread, once per process (later calls return at once): cdens's parallelism
/// is its own (parallel_for), and a BLAS on several threads splits a product by its thread
/// count, rounding it otherwise (docs/design.md, "Same answer"). Called before cdens computes
/// anything: by resolve_threads, the models' constructors and fit_method. Not at static
/// initialisation: a statically linked OpenBLAS reads its thread count from the environment in
/// its own initialiser, which may run after ours.
void use_one_blas_thread();

/// The most threads a fit may ask for: 8 per processor. More only adds the cost of creating
/// them (and a request such as 100,000 ends in a crash inside the OpenMP runtime).
inline int thread_limit() { return 8 * omp_get_num_procs(); }

/// Threads for the default count: OpenMP's default (one per processor, or OMP_NUM_THREADS),
/// less the processors that other processes' runnable tasks keep busy at the moment, at least one —
/// so a fit beside other work neither waits for threads that share a core with it nor starts more
/// than the free cores (issue 52: two threads beside two busy processes took 1.2× one thread's
/// time). Other tasks are counted from Linux's /proc/loadavg, read at most every 0.1 s, taking
/// the more threads of its last two reads. Where that count cannot say which processors are ours
/// (OMP_NUM_THREADS set; this process bound to fewer processors than the machine has, as in a
/// container's cpuset; no /proc), OpenMP's default as it is. The count says where a fit runs,
/// not what it computes.
int default_threads();

/// default_threads's rule, apart from reading the machine: `most` threads (OpenMP's default) on
/// `processors` processors while `loadavg` (the text of /proc/loadavg, whose fourth field counts
/// the runnable tasks of the machine) is what Linux reports and `own_running` of the runnable
/// tasks are this process's threads (the caller among them).
int threads_beside_running_tasks(int most, int processors, const std::string& loadavg,
                                 int own_running);

/// OpenMP threads for a requested count: 0 means default_threads(). InvalidArgument for a
/// negative count or one above thread_limit().
inline int resolve_threads(int requested) {
  if (requested < 0 || requested > thread_limit()) {
    throw InvalidArgument("the thread count " + std::to_string(requested) +
                          (requested < 0
                               ? " is negative"
                               : " is more than 8 per processor of this machine (" +
                                     std::to_string(omp_get_num_procs()) + " processors; at most " +
                                     std::to_string(thread_limit()) + ")"));
  }
  use_one_blas_thread();
  return requested > 0 ? requested : default_threads();
}

/// Sets the calling thread's OpenMP thread count (so its BLAS) to one for its lifetime.
class OneNestedThread {
 public:
  OneNestedThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneNestedThread() { omp_set_num_threads(saved_); }
  OneNestedThread(const OneNestedThread&) = delete;
  OneNestedThread& operator=(const OneNestedThread&) = delete;

 private:
  int saved_;
};

/// Calls task(i) for i = 0 … count − 1 on `threads` OpenMP threads, in any order.
///
/// Inside a task, nested parallelism is set to one thread (a parallel_for inside a task runs on
/// the task's thread, and so would an OpenMP BLAS); BLAS runs on one thread everywhere
/// (use_one_blas_thread). With tasks that write only their own outputs, combined in task order,
/// results are then independent of the thread count.
/// The first exception a task throws is rethrown here once all tasks have stopped (an
/// exception must not escape an OpenMP region).
///
/// One task, or one thread, runs on the calling thread without a parallel region (still with
/// one BLAS thread): a region wakes its threads and waits for them at its end, which costs tens
/// of microseconds when they sleep between regions (OMP_WAIT_POLICY=PASSIVE) — more than a
/// small task, and GSKD at N = 10⁴ opens tens of thousands of one-task regions.
template <class Task>
void parallel_for(int threads, Index count, Task&& task) {
  if (threads <= 1 || count <= 1) {
    const OneNestedThread one_thread;
    for (Index i = 0; i < count; ++i) task(i);
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
#pragma omp parallel num_threads(threads)
  {
    omp_set_num_threads(1);
#pragma omp for schedule(dynamic)
    for (Index i = 0; i < count; ++i) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cdens

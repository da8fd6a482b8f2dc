// The default thread count follows the processors other work leaves free (parallel.hpp).

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "parallel/parallel.hpp"

namespace cdens {

int threads_beside_running_tasks(int most, int processors, const std::string& loadavg,
                                 int own_running) {
  std::istringstream fields(loadavg);
  double one_minute = 0, five_minutes = 0, fifteen_minutes = 0;
  long runnable = 0;
  char slash = 0;
  if (!(fields >> one_minute >> five_minutes >> fifteen_minutes >> runnable >> slash) ||
      slash != '/' || runnable < 1) {
    return most;
  }
  const long others = runnable - std::max(1, own_running);
  const long free = static_cast<long>(processors) - others;
  return static_cast<int>(std::max(1L, std::min(static_cast<long>(most), free)));
}

namespace {

// Whether the runnable tasks of /proc/loadavg are the ones competing for this process's
// processors: not when the user fixed the count, nor when this process may run on fewer
// processors than the machine has (a cpuset; the tasks on the others do not compete).
bool load_says_what_is_free() {
  static const bool says = std::getenv("OMP_NUM_THREADS") == nullptr &&
                           omp_get_num_procs() == sysconf(_SC_NPROCESSORS_ONLN);
  return says;
}

std::string read_loadavg() {
  std::ifstream file("/proc/loadavg");
  std::string line;
  std::getline(file, line);
  return line;
}

// This process's threads that are runnable (state R in /proc/self/task/<id>/stat, the field
// after the parenthesised name): its OpenMP and OpenBLAS threads wake, or spin, around their
// work, and must not count as other work.
int own_running_threads() {
  int running = 0;
  // With error codes, not exceptions: a thread may end while its directory is read.
  std::error_code error;
  std::filesystem::directory_iterator task("/proc/self/task", error);
  for (; !error && task != std::filesystem::directory_iterator(); task.increment(error)) {
    std::ifstream file(task->path() / "stat");
    std::string stat;
    std::getline(file, stat);
    const std::size_t name_end = stat.rfind(')');
    if (name_end != std::string::npos && name_end + 2 < stat.size() && stat[name_end + 2] == 'R') {
      ++running;
    }
  }
  return running;
}

}  // namespace

int default_threads() {
  const int most = omp_get_max_threads();  // 1 inside a task of parallel_for
  if (most <= 1 || !load_says_what_is_free()) return most;
  // A read serves every caller for 0.1 s (queries of a mixture resolve their threads per call,
  // which a user may make in a loop of small batches), and the count is the larger of the last
  // two reads: a task that runs for a moment (a shell, a daemon; 5 reads in 400 on an idle
  // machine here) then costs no threads, while other work that lasts is seen from the second
  // read on.
  static std::atomic<long long> read_at{-1};
  static std::atomic<int> last{0};
  static std::atomic<int> threads{0};
  const long long now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
  const long long previous_read = read_at.load();
  if (previous_read < 0 || now - previous_read >= 100) {
    const int read = threads_beside_running_tasks(most, omp_get_num_procs(), read_loadavg(),
                                                  own_running_threads());
    threads = std::max(read, last.exchange(read));
    read_at = now;
  }
  return std::min(most, threads.load());
}

}  // namespace cdens

#pragma once
// What a fit or an evaluation called from R tells and heeds while it runs. With verbose, each
// stage of counted steps is TerminalProgress's status line (the steps done, their rate and the
// time left), passed to R's message() — so suppressMessages() and message handlers see it — and
// kept with its time when the stage ends. Whatever verbose says, R's interrupt (Ctrl-C, Esc) is
// checked at every step: the fit stops at its next step and R gets the interrupt once the fit's
// objects are gone.
//
// Only R's own thread may call R. A step done on another thread (a task of parallel_for) queues
// its line and reads a flag; R's thread, at its own steps, passes the lines on, checks the
// interrupt and raises the flag that stops the other threads at their next step.

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "cdens/core/fit_context.hpp"

namespace cdens::r {

class RProgress final : public Progress {
 public:
  /// Made on R's thread. Every stage's label starts with `prefix` (the model a comparison
  /// evaluates).
  explicit RProgress(bool verbose, std::string prefix = {});
  RProgress(const RProgress&) = delete;
  RProgress& operator=(const RProgress&) = delete;

  /// Throw Rcpp's InterruptedException once R has been interrupted.
  void begin(std::string_view label, Index total) override;
  void advance(Index steps = 1) override;
  /// Never throws (a stage may end as an exception unwinds).
  void end() override;

  /// On R's thread after the work: passes the lines still queued to message().
  void flush();

 private:
  /// The interrupt check and, on R's thread, the lines to message() (at most ten times a second).
  void heed();
  void queue(std::string_view text);

  std::thread::id r_thread_;
  std::string prefix_;
  std::optional<TerminalProgress> terminal_;
  std::mutex queued_mutex_;
  std::string queued_;
  std::atomic<bool> interrupted_{false};
  std::chrono::steady_clock::time_point last_heeded_{};
};

}  // namespace cdens::r

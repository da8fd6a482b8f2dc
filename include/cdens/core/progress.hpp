#pragma once
// Progress of long fits (cross-validation grids, restarts). Estimators report steps; the CLI
// shows them on a terminal, everything else stays silent.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "cdens/core/types.hpp"

namespace cdens {

class Progress {
 public:
  virtual ~Progress() = default;
  /// Starts a stage of `total` steps called `label`.
  virtual void begin(std::string_view label, Index total) = 0;
  /// Marks `steps` more steps done. Safe to call from several threads at once.
  virtual void advance(Index steps = 1) = 0;
  /// Ends the current stage.
  virtual void end() = 0;
};

/// Reports nothing.
Progress& silent_progress();

/// Rewrites one status line ("label: done/total") on `stream`, at most ten times a second, and
/// clears it at the end of a stage. Meant for a terminal's standard error.
class TerminalProgress final : public Progress {
 public:
  explicit TerminalProgress(std::FILE* stream) : stream_(stream) {}
  void begin(std::string_view label, Index total) override;
  void advance(Index steps = 1) override;
  void end() override;

 private:
  void draw();

  std::FILE* stream_;
  std::mutex mutex_;
  std::string label_;
  Index total_ = 0;
  Index done_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace cdens

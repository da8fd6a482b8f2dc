#pragma once
// The progress line of the long commands (fit, evaluate, compare, predict) and their --quiet flag.
// A progress line is for a person watching: it goes to standard error only when that is a terminal,
// on one process (rank 0 speaks for all under mpirun), and never with --quiet.

#include <optional>

#include "cdens/core/fit_context.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace cdens::cli {

/// Adds --quiet: no progress line. Warnings still go to standard error: they say something about
/// the results (rows left out, a score that is not finite, a deprecated spelling).
void add_quiet_flag(CLI::App& command, bool& quiet);

/// The progress of one command: a TerminalProgress on standard error, or silent_progress().
class CommandProgress {
 public:
  explicit CommandProgress(bool quiet);
  Progress& progress() {
    return terminal_ ? static_cast<Progress&>(*terminal_) : silent_progress();
  }

 private:
  std::optional<TerminalProgress> terminal_;
};

}  // namespace cdens::cli

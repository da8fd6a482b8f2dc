#include "command_progress.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "processes.hpp"

namespace cdens::cli {

void add_quiet_flag(CLI::App& command, bool& quiet) {
  command.add_flag("--quiet,-q", quiet,
                   "No progress line on standard error (it is shown only on a terminal); "
                   "warnings and errors still are");
}

CommandProgress::CommandProgress(bool quiet) {
  if (!quiet && isatty(STDERR_FILENO) && processes().rank() == 0) terminal_.emplace(stderr);
}

}  // namespace cdens::cli

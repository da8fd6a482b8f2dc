#pragma once
// The progress of a fit or an evaluation called from Python with verbose=1: the status line of
// TerminalProgress (a rate and the time left) written to sys.stderr, where a terminal, Jupyter and
// pytest's capture all see it, each finished stage kept as a line ("cross-validation: 40/40 in
// 0:03"). verbose=0 (scikit-learn's default) reports nothing.

#include <optional>
#include <string>

#include "cdens/core/fit_context.hpp"

namespace cdens::python {

class PythonProgress {
 public:
  /// ValueError for a negative `verbose`. Every stage's label starts with `prefix`.
  explicit PythonProgress(long verbose, std::string prefix = {});
  PythonProgress(const PythonProgress&) = delete;
  PythonProgress& operator=(const PythonProgress&) = delete;

  Progress& progress();

 private:
  std::optional<TerminalProgress> terminal_;
  std::optional<PrefixedProgress> prefixed_;
};

}  // namespace cdens::python

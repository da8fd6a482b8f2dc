#include "python_progress.hpp"

#include <pybind11/pybind11.h>

#include <utility>

#include "cdens/core/types.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// Writes `text` to sys.stderr. Called from the fit's threads with the GIL released around the
/// fit, so it takes the GIL for the write; a failing stream (closed, replaced by something
/// without write) loses the line rather than the fit.
void write_to_python_stderr(std::string_view text) {
  py::gil_scoped_acquire gil;
  try {
    const py::object stream = py::module_::import("sys").attr("stderr");
    if (stream.is_none()) return;
    stream.attr("write")(py::str(text.data(), text.size()));
    stream.attr("flush")();
  } catch (const py::error_already_set&) {
    // The Python error is cleared as the exception object goes.
  }
}

}  // namespace

PythonProgress::PythonProgress(long verbose, std::string prefix) {
  if (verbose < 0) {
    throw InvalidArgument("verbose must be 0 (silent) or more, got " + std::to_string(verbose));
  }
  if (verbose == 0) return;
  terminal_.emplace(&write_to_python_stderr, TerminalProgress::Finished::keep);
  if (!prefix.empty()) prefixed_.emplace(*terminal_, std::move(prefix));
}

Progress& PythonProgress::progress() {
  if (prefixed_) return *prefixed_;
  if (terminal_) return *terminal_;
  return silent_progress();
}

}  // namespace cdens::python

// PRESS regression (Goerg 2017): the summary of a PRESS model's states, which a model read from
// a file gives too (its coefficients, state means and sizes). Its fit and its queries (state
// weights, point prediction, state entropy) are the registry's (method_binding.cpp); everything
// else about the fitted model is the ConditionalModel's.

#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/model_file.hpp"
#include "cdens/regression/press.hpp"
#include "regression/press_gate.hpp"

namespace py = pybind11;

namespace cdens::python {

void bind_press(py::module_& module) {
  module.def(
      "press_state_summary",
      [](const ConditionalModel& model) {
        PressStateSummary summary = press_state_summary(model.mixture);
        py::dict result;
        result["coefficients"] = samples_to_numpy(std::move(summary.coefficients));
        result["state_means"] = vector_to_numpy(std::move(summary.state_means));
        result["state_sizes"] = vector_to_numpy(std::move(summary.state_sizes));
        return result;
      },
      py::arg("model"),
      "Coefficients (J, d + 1; column 0 the intercepts, user units), state means and sizes.");
}

}  // namespace cdens::python

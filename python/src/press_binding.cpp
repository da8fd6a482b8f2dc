// PRESS regression (Goerg 2017): the queries only PRESS models answer (state weights, the state
// summary). Its fit is the registry's (method_binding.cpp); everything else about the fitted
// model is the ConditionalModel's.

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
      "press_state_weights",
      [](const ConditionalModel& model, const py::array& x) {
        const auto xs = samples_of(x, "X");
        return samples_to_numpy(
            without_gil([&] { return press_state_weights(model.mixture, xs); }));
      },
      py::arg("model"), py::arg("X"), "State weights w(x) of a PRESS model, shape (n, J).");
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

#pragma once
// The parts of the _core extension module, each registered by its own function.

#include <pybind11/pybind11.h>

#include <utility>

namespace cdens::python {

/// Runs `work` with the GIL released, so other Python threads go on while the library computes.
/// The arguments `work` reads must already be converted: Python objects are off limits inside.
template <typename Work>
auto without_gil(Work&& work) {
  pybind11::gil_scoped_release release;
  return std::forward<Work>(work)();
}

/// Library exceptions become ValueError (bad input, bad model file) or OSError (unreadable file).
void register_exceptions();
/// The ConditionalModel class: queries, report, files, pickling.
void bind_conditional_model(pybind11::module_& module);
/// The registry of methods and the fit functions that build options from it.
void bind_methods(pybind11::module_& module);
/// The draws of fit_lscde, for numpy references of LSCDE.
void bind_sampling_plan(pybind11::module_& module);
/// The DensityModel class: queries, report, files, pickling.
void bind_density_model(pybind11::module_& module);
/// PRESS: the queries only PRESS models answer.
void bind_press(pybind11::module_& module);
/// Scores, calibration and comparisons of fitted models (cdens.metrics).
void bind_evaluation(pybind11::module_& module);

}  // namespace cdens::python

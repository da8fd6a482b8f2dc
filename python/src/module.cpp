// The _core extension module of the `cdens` Python package.

#include <pybind11/pybind11.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/core/types.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "core/vector_instruction_set.hpp"
#include "io/csv.hpp"
#include "io/json_io.hpp"

namespace py = pybind11;

namespace cdens::python {

void register_exceptions() {
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const IoError& io_error) {
      PyErr_SetString(PyExc_OSError, io_error.what());
    } catch (const Error& library_error) {
      PyErr_SetString(PyExc_ValueError, library_error.what());
    }
  });
}

/// The model of a file in either encoding, read once: a DensityModel for the shape of the
/// density methods, a ConditionalModel otherwise (its reader says what is wrong with a file that
/// is neither).
py::object load_model_file(const std::string& path) {
  const nlohmann::json document = read_model_document(path);
  if (model_file_shape(document) == model_shape(MethodFamily::density)) {
    return py::cast(density_model_from_json(document));
  }
  return py::cast(conditional_model_from_json(document));
}

}  // namespace cdens::python

PYBIND11_MODULE(_core, module) {
  module.doc() =
      "C++ engine of cdens: fit functions, the fitted ConditionalModel and DensityModel.";
  module.attr("__version__") = CDENS_VERSION;
  cdens::python::register_exceptions();
  cdens::python::bind_conditional_model(module);
  cdens::python::bind_methods(module);
  cdens::python::bind_sampling_plan(module);
  cdens::python::bind_density_model(module);
  cdens::python::bind_press(module);
  cdens::python::bind_evaluation(module);
  module.def("vector_instruction_set", &cdens::vector_instruction_set,
             "The copy of the vector loops that runs (cdens.vector_instruction_set).");
  module.def("load_model_file", &cdens::python::load_model_file, py::arg("path"),
             "The ConditionalModel or DensityModel of a model file written by the CLI or save().");
  module.def(
      "label_of_text", [](const std::string& text) { return cdens::label_of_text(text); },
      py::arg("text"),
      "The label a cell of a discrete column of words stands for, as the command reads "
      "it: the text trimmed, or a finite number's shortest text ('1.0' is '1').");
  module.def(
      "buffer_address",
      [](const py::array& array) {
        return reinterpret_cast<std::uintptr_t>(cdens::python::samples_of(array, "array").data());
      },
      py::arg("array"),
      "Address of the memory the library reads for a sample array; equals the numpy array's own "
      "when no copy was made.");
}

#pragma once
// What the two fitted-model classes of the Python module share (docs/design.md's two shapes): the
// fit-report properties and the model-file methods, defined once for any model struct with a
// `report` member.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_report.hpp"
#include "io/json_io.hpp"

namespace cdens::python {

/// A CV table as {parameter_names, candidates (n, p), mean_loss, standard_error, loss, best}.
pybind11::dict cv_table_to_dict(const CvTable& table);

/// A feature selection as {selected, importances, path: None or {lambdas, group_norms (d_x, L),
/// chosen_lambda}}.
pybind11::dict feature_selection_to_dict(const FeatureSelection& selection);

/// The table of `--method auto` as its JSON: {candidates: [{candidate, mean_nll, …}], chosen,
/// folds, time_budget}, None for a number that was not scored.
pybind11::object method_selection_to_dict(const MethodSelection& selection);

/// A highest-density region as (intervals of shape (k, 2), density threshold).
pybind11::tuple region_to_tuple(const HighestDensityRegion& region);

/// method, hyperparameters, statistics, cross_validation, parameter_choice,
/// auxiliary_cross_validation, fit_seconds and warnings, read from `Model::report`.
template <class Model>
void add_report_properties(pybind11::class_<Model>& model_class) {
  model_class.def_property_readonly("method", [](const Model& m) { return m.report.method; })
      .def_property_readonly("hyperparameters",
                             [](const Model& m) { return m.report.hyperparameters; })
      .def_property_readonly("statistics", [](const Model& m) { return m.report.statistics; })
      .def_property_readonly("cross_validation",
                             [](const Model& m) -> pybind11::object {
                               if (!m.report.cross_validation) return pybind11::none();
                               return cv_table_to_dict(*m.report.cross_validation);
                             })
      .def_property_readonly("parameter_choice",
                             [](const Model& m) -> pybind11::object {
                               // How a fit without a CV table chose its hyper-parameters (KCDE's
                               // search, GMM's given n_components); None for a grid method given a
                               // single candidate.
                               if (m.report.parameter_choice.empty()) return pybind11::none();
                               return pybind11::str(m.report.parameter_choice);
                             })
      .def_property_readonly(
          "auxiliary_cross_validation",
          [](const Model& m) {
            // {name: table} of the further tables a fit selected with
            // (RKDE: its marginal KDE).
            pybind11::dict result;
            for (const auto& [name, table] : m.report.auxiliary_cross_validation) {
              result[pybind11::str(name)] = cv_table_to_dict(table);
            }
            return result;
          })
      .def_property_readonly("feature_selection",
                             [](const Model& m) -> pybind11::object {
                               if (!m.report.feature_selection) return pybind11::none();
                               return feature_selection_to_dict(*m.report.feature_selection);
                             })
      .def_property_readonly("method_selection",
                             [](const Model& m) -> pybind11::object {
                               if (!m.report.method_selection) return pybind11::none();
                               return method_selection_to_dict(*m.report.method_selection);
                             })
      .def_property_readonly("fit_seconds", [](const Model& m) { return m.report.fit_seconds; })
      .def_property_readonly("warnings", [](const Model& m) { return m.report.warnings; });
}

/// to_json, from_json, save, load and pickling through the model-file functions of the shape.
template <class Model>
void add_file_methods(pybind11::class_<Model>& model_class, nlohmann::json (*to_json)(const Model&),
                      Model (*from_json)(const nlohmann::json&),
                      void (*save)(const Model&, const std::string&),
                      Model (*load)(const std::string&)) {
  namespace py = pybind11;
  auto from_text = [from_json](const std::string& text) {
    return from_json(parse_json_text(text, "model text"));
  };
  auto to_text = [to_json](const Model& m) { return to_json(m).dump(); };
  model_class.def("to_json", to_text)
      .def_static("from_json", from_text, py::arg("text"))
      .def("save", save, py::arg("path"), "Writes the model file atomically (the CLI's format).")
      .def_static("load", load, py::arg("path"))
      .def(py::pickle(to_text, from_text));
}

}  // namespace cdens::python

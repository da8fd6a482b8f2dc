// The fitted conditional model as a Python object: every query of ConditionalMixture, the fit
// report, model files and pickling. The estimator classes of the `cdens` package wrap it.

#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/model_file.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

py::dict cv_table_to_dict(const CvTable& table) {
  py::dict result;
  result["parameter_names"] = table.parameter_names;
  result["candidates"] = samples_to_numpy(table.candidates.transpose());
  result["mean_loss"] = vector_to_numpy(Vector(table.mean_loss));
  result["standard_error"] = vector_to_numpy(Vector(table.standard_error));
  result["loss"] = table.loss;
  result["best"] = table.best;
  return result;
}

py::object cross_validation_of(const ConditionalModel& model) {
  if (!model.report.cross_validation) return py::none();
  return cv_table_to_dict(*model.report.cross_validation);
}

/// {name: table} of the further tables a fit selected with (RKDE: its marginal KDE).
py::dict auxiliary_cross_validation_of(const ConditionalModel& model) {
  py::dict result;
  for (const auto& [name, table] : model.report.auxiliary_cross_validation) {
    result[py::str(name)] = cv_table_to_dict(table);
  }
  return result;
}

/// Each highest-density region as (intervals of shape (k, 2), density threshold).
py::list regions_to_list(const std::vector<HighestDensityRegion>& regions) {
  py::list result;
  for (const auto& region : regions) {
    Matrix bounds(2, static_cast<Index>(region.intervals.size()));
    for (std::size_t k = 0; k < region.intervals.size(); ++k) {
      bounds(0, static_cast<Index>(k)) = region.intervals[k].lower;
      bounds(1, static_cast<Index>(k)) = region.intervals[k].upper;
    }
    result.append(py::make_tuple(samples_to_numpy(std::move(bounds)), region.density_threshold));
  }
  return result;
}

/// A query of one value per (x_j, y_j) pair, as a Python method returning shape (m,).
auto pair_query(Vector (ConditionalMixture::*query)(const MatrixView&, const MatrixView&) const) {
  return [query](const ConditionalModel& m, const py::array& x, const py::array& y) {
    const auto xs = samples_of(x, "X");
    const auto ys = samples_of(y, "Y");
    return vector_to_numpy(without_gil([&] { return (m.mixture.*query)(xs, ys); }));
  };
}

/// A query of one row per input x_j, as a Python method returning shape (m, ·).
auto input_query(Matrix (ConditionalMixture::*query)(const MatrixView&) const) {
  return [query](const ConditionalModel& m, const py::array& x) {
    const auto xs = samples_of(x, "X");
    return samples_to_numpy(without_gil([&] { return (m.mixture.*query)(xs); }));
  };
}

}  // namespace

void bind_conditional_model(py::module_& module) {
  py::class_<ConditionalModel>(module, "ConditionalModel",
                               "A fitted conditional mixture p(y|x) with its fit report.")
      .def_property_readonly("method", [](const ConditionalModel& m) { return m.report.method; })
      .def_property_readonly("input_dim",
                             [](const ConditionalModel& m) { return m.mixture.input_dim(); })
      .def_property_readonly("output_dim",
                             [](const ConditionalModel& m) { return m.mixture.output_dim(); })
      .def_property_readonly("n_components",
                             [](const ConditionalModel& m) { return m.mixture.n_components(); })
      .def_readwrite("x_names", &ConditionalModel::x_names)
      .def_readwrite("y_names", &ConditionalModel::y_names)
      .def_property_readonly("hyperparameters",
                             [](const ConditionalModel& m) { return m.report.hyperparameters; })
      .def_property_readonly("statistics",
                             [](const ConditionalModel& m) { return m.report.statistics; })
      .def_property_readonly("cross_validation", &cross_validation_of)
      .def_property_readonly("auxiliary_cross_validation", &auxiliary_cross_validation_of)
      .def_property_readonly("fit_seconds",
                             [](const ConditionalModel& m) { return m.report.fit_seconds; })
      .def_property_readonly("warnings",
                             [](const ConditionalModel& m) { return m.report.warnings; })
      .def("log_pdf", pair_query(&ConditionalMixture::log_pdf), py::arg("X"), py::arg("Y"),
           "log p(y_j | x_j) in the user's units, shape (m,).")
      .def("cdf", pair_query(&ConditionalMixture::cdf), py::arg("X"), py::arg("Y"),
           "P(Y ≤ y_j | x_j) for 1-D y, shape (m,).")
      .def(
          "pdf_grid",
          [](const ConditionalModel& m, const py::array& x, const py::array& grid) {
            const auto xs = samples_of(x, "X");
            const auto grid_points = samples_of(grid, "y_grid");
            return samples_to_numpy(
                without_gil([&] { return m.mixture.pdf_grid(xs, grid_points); }));
          },
          py::arg("X"), py::arg("y_grid"), "p(g | x_j) for every grid point g, shape (m, G).")
      .def("component_probabilities", input_query(&ConditionalMixture::component_probabilities),
           py::arg("X"), "π_k(x_j), shape (m, K).")
      .def("mean", input_query(&ConditionalMixture::mean), py::arg("X"),
           "E[y | x_j], shape (m, d_y).")
      .def("covariance", input_query(&ConditionalMixture::covariance), py::arg("X"),
           "Cov[y | x_j] flattened, shape (m, d_y·d_y).")
      .def(
          "sample",
          [](const ConditionalModel& m, const py::array& x, Index n_per_input, std::uint64_t seed) {
            const auto xs = samples_of(x, "X");
            return samples_to_numpy(
                without_gil([&] { return m.mixture.sample(xs, n_per_input, seed); }));
          },
          py::arg("X"), py::arg("n_per_input"), py::arg("seed"),
          "Draws, shape (m·n, d_y); rows j·n … (j+1)·n − 1 are drawn given x_j.")
      .def(
          "quantiles",
          [](const ConditionalModel& m, const py::array& x, const py::array& probabilities) {
            const auto xs = samples_of(x, "X");
            const std::vector<double> levels = numbers_of(probabilities, "q");
            return samples_to_numpy(without_gil([&] { return m.mixture.quantiles(xs, levels); }));
          },
          py::arg("X"), py::arg("q"), "Quantiles for 1-D y, shape (m, len(q)).")
      .def(
          "highest_density_regions",
          [](const ConditionalModel& m, const py::array& x, double coverage) {
            const auto xs = samples_of(x, "X");
            return regions_to_list(
                without_gil([&] { return m.mixture.highest_density_regions(xs, coverage); }));
          },
          py::arg("X"), py::arg("coverage"),
          "Per input: (intervals of shape (k, 2), density threshold), for 1-D y.")
      .def("to_json", [](const ConditionalModel& m) { return conditional_model_to_json(m).dump(); })
      .def_static(
          "from_json",
          [](const std::string& text) {
            return conditional_model_from_json(parse_json_text(text, "model text"));
          },
          py::arg("text"))
      .def("save", &save_conditional_model, py::arg("path"),
           "Writes the model file atomically (the CLI's format).")
      .def_static("load", &load_conditional_model, py::arg("path"))
      .def(py::pickle([](const ConditionalModel& m) { return conditional_model_to_json(m).dump(); },
                      [](const std::string& text) {
                        return conditional_model_from_json(parse_json_text(text, "model text"));
                      }));
}

}  // namespace cdens::python

// The fitted conditional model as a Python object: every query of ConditionalMixture, the fit
// report, model files and pickling. The estimator classes of the `cdens` package wrap it.

#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "conditional/projected_gate.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"
#include "model_binding.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// Each highest-density region as (intervals of shape (k, 2), density threshold).
py::list regions_to_list(const std::vector<HighestDensityRegion>& regions) {
  py::list result;
  for (const auto& region : regions) result.append(region_to_tuple(region));
  return result;
}

/// The projection W on all inputs of a model whose gate projects its inputs first (LSCE, LSMI);
/// InvalidArgument for another model.
Matrix projection_of(const ConditionalModel& m) {
  Matrix w = input_projection(m.mixture);
  if (w.rows() == 0) throw InvalidArgument("this model does not project its inputs");
  return w;
}

/// The kind ("continuous", "unordered", "ordered") of every kernel of `kernels`.
std::vector<std::string> kinds_of(const ColumnKernels& kernels) {
  std::vector<std::string> kinds;
  for (const ColumnKernel& kernel : kernels) kinds.push_back(to_string(kernel.kind()));
  return kinds;
}

/// The query rows of X (n, d_x) whose answers extrapolate.
ExtrapolatedRows extrapolated_rows_of(const ConditionalModel& m, const py::array& x) {
  const auto xs = samples_of(x, "X");
  return without_gil([&] { return m.mixture.extrapolated_rows(xs); });
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
  py::class_<ConditionalModel> model_class(
      module, "ConditionalModel", "A fitted conditional mixture p(y|x) with its fit report.");
  add_report_properties(model_class);
  add_file_methods(model_class, &conditional_model_to_json, &conditional_model_from_json,
                   &save_conditional_model, &load_conditional_model);
  model_class
      .def_property_readonly("input_dim",
                             [](const ConditionalModel& m) { return m.mixture.input_dim(); })
      .def_property_readonly("output_dim",
                             [](const ConditionalModel& m) { return m.mixture.output_dim(); })
      .def_property_readonly("n_components",
                             [](const ConditionalModel& m) { return m.mixture.n_components(); })
      .def_property_readonly(
          "output_kinds",
          [](const ConditionalModel& m) { return kinds_of(m.mixture.output_kernels()); },
          "The kernel of every output: 'continuous' (log_pdf is a log density in it) or "
          "'unordered'/'ordered' (a log probability mass).")
      .def_property_readonly(
          "input_kinds",
          [](const ConditionalModel& m) {
            // KCDE around the Gaussian-process trend wraps its kernel gate with the process's
            // component.
            const ConditionalGate* kernel_gate = &m.mixture.gate();
            if (const auto* broad = dynamic_cast<const BroadComponentGate*>(kernel_gate)) {
              kernel_gate = &broad->inner();
            }
            const auto* gate = dynamic_cast<const ProductKernelGate*>(kernel_gate);
            return gate != nullptr
                       ? kinds_of(gate->kernels())
                       : std::vector<std::string>(static_cast<std::size_t>(m.mixture.input_dim()),
                                                  "continuous");
          },
          "The kernel of every input: 'continuous', 'unordered' or 'ordered'.")
      .def_property_readonly(
          "projection",
          [](const ConditionalModel& m) -> py::object {
            const Matrix w = input_projection(m.mixture);
            if (w.rows() == 0) return py::none();
            return samples_to_numpy(Matrix(w.transpose()));
          },
          "W (d_z, d_x), acting on standardised inputs, or None if the model projects nothing.")
      .def(
          "unproject",
          [](const ConditionalModel& m, const py::array& z) {
            const Matrix w = projection_of(m);
            const auto zs = samples_of(z, "Z");
            require_dimension(zs, w.rows(), "Z");
            require_finite(zs, "Z");
            return samples_to_numpy(m.mixture.x_scaling().inverse_transform(w.transpose() * zs));
          },
          py::arg("Z"),
          "The inputs x whose standardisation is Wᵀz: the point of the subspace with projection "
          "z, shape (m, d_x).")
      .def_readwrite("x_names", &ConditionalModel::x_names)
      .def_readwrite("y_names", &ConditionalModel::y_names)
      .def_readwrite("labels", &ConditionalModel::labels,
                     "The labels of the discrete variables that hold words, by name: labels[k] "
                     "is the name of code k (empty when every value is a number).")
      .def_property_readonly(
          "input_range",
          [](const ConditionalModel& m) -> py::object {
            const auto& range = m.mixture.input_range();
            if (!range) return py::none();
            return py::make_tuple(vector_to_numpy(Vector(range->lower)),
                                  vector_to_numpy(Vector(range->upper)));
          },
          "(lower, upper): the smallest and largest value of every input over the training rows, "
          "or None for a model read from a file written before cdens kept them.")
      .def_property_readonly(
          "output_bounds",
          [](const ConditionalModel& m) {
            const OutputBounds& bounds = m.mixture.output_bounds();
            return py::make_tuple(bounds.y_lower, bounds.y_upper);
          },
          "(y_lower, y_upper): the bounds the components of a one-dimensional y are truncated "
          "to (-inf, inf: none).")
      .def(
          "extrapolated_rows",
          [](const ConditionalModel& m, const py::array& x) {
            const std::vector<Index> rows = extrapolated_rows_of(m, x).rows;
            return py::array_t<Index>(static_cast<py::ssize_t>(rows.size()), rows.data());
          },
          py::arg("X"),
          "The rows of X whose answers extrapolate: an input beyond its training range by more "
          "than a tenth of that range, or a row no component weighs (the marginal mixture "
          "answers it); shape (k,), increasing.")
      .def(
          "extrapolation_warning",
          [](const ConditionalModel& m, const py::array& x) {
            return extrapolation_warning(extrapolated_rows_of(m, x), x.ndim() > 0 ? x.shape(0) : 0,
                                         m.x_names);
          },
          py::arg("X"),
          "The warning the estimators give for query rows X of which some extrapolate, or '' "
          "where none does.")
      .def_property_readonly(
          "query_tolerance", [](const ConditionalModel& m) { return m.mixture.query_tolerance(); },
          "The tolerance, in probability, of the one-dimensional queries (CDF, quantiles, "
          "regions, CRPS, draws) of a mixture of many components (docs/methods/kcde.md, "
          "'Queries of large models').")
      .def(
          "with_query_tolerance",
          [](const ConditionalModel& m, double tolerance) {
            ConditionalModel model = m;
            model.mixture = m.mixture.with_query_tolerance(tolerance);
            return model;
          },
          py::arg("tolerance"),
          "This model with the one-dimensional queries within `tolerance` in probability (0: "
          "from every component, the exact reference).")
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
      .def_property_readonly(
          "atom",
          [](const ConditionalModel& m) -> py::object {
            if (!m.mixture.atom()) return py::none();
            return py::float_(m.mixture.atom()->value);
          },
          "The value of y's atom (a point mass, e.g. the zero of a zero-inflated y), or None.")
      .def(
          "atom_probability",
          [](const ConditionalModel& m, const py::array& x) {
            const auto xs = samples_of(x, "X");
            return vector_to_numpy(without_gil([&] { return m.mixture.atom_probability(xs); }));
          },
          py::arg("X"), "P(y = a | x_j) of y's atom a, shape (m,); ValueError without an atom.")
      .def(
          "squared_norm",
          [](const ConditionalModel& m, const py::array& x) {
            const auto xs = samples_of(x, "X");
            return vector_to_numpy(without_gil([&] { return m.mixture.squared_norm(xs); }));
          },
          py::arg("X"), "∫ p(y | x_j)² dy in the user's units, shape (m,) (the SQ criterion).")
      .def("mean", input_query(&ConditionalMixture::mean), py::arg("X"),
           "E[y | x_j], shape (m, d_y).")
      .def("covariance", input_query(&ConditionalMixture::covariance), py::arg("X"),
           "Cov[y | x_j] flattened, shape (m, d_y·d_y).")
      .def(
          "sample",
          [](const ConditionalModel& m, const py::array& x, Index n_per_input, std::uint64_t seed) {
            const auto xs = samples_of(x, "X");
            require_memory_for(static_cast<double>(n_per_input) * static_cast<double>(xs.cols()) *
                                   static_cast<double>(m.mixture.output_dim()),
                               "n_samples");
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
          "Per input: (intervals of shape (k, 2), density threshold), for 1-D y.");
}

}  // namespace cdens::python

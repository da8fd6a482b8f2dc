// The fitted unconditional density p(x) (a diagonal Gaussian mixture) as a Python object: its
// queries, the fit report, model files and pickling. The density estimator classes of the
// `cdens` package wrap it.

#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/model_file.hpp"
#include "core/validate.hpp"
#include "model_binding.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

py::array_t<double> scales_in_user_units(const DensityModel& m) {
  return samples_to_numpy(Matrix(m.mixture.x_scaling().scale().asDiagonal() * m.mixture.scales()));
}

}  // namespace

void bind_density_model(py::module_& module) {
  py::class_<DensityModel> model_class(
      module, "DensityModel", "A fitted diagonal Gaussian mixture p(x) with its fit report.");
  add_report_properties(model_class);
  add_file_methods(model_class, &density_model_to_json, &density_model_from_json,
                   &save_density_model, &load_density_model);
  model_class
      .def_property_readonly("dimension",
                             [](const DensityModel& m) { return m.mixture.dimension(); })
      .def_property_readonly("n_components",
                             [](const DensityModel& m) { return m.mixture.n_components(); })
      .def_readwrite("names", &DensityModel::names)
      .def_property_readonly(
          "weights",
          [](const DensityModel& m) { return vector_to_numpy(Vector(m.mixture.weights())); },
          "beta_l, shape (K,).")
      .def_property_readonly(
          "centers",
          [](const DensityModel& m) {
            return samples_to_numpy(m.mixture.x_scaling().inverse_transform(m.mixture.centers()));
          },
          "Kernel centres in the user's units, shape (K, d).")
      .def_property_readonly("scales", &scales_in_user_units,
                             "The components' standard deviations (kernel widths) in the "
                             "user's units, shape (K, d), as ConditionalModel spells them.")
      .def_property_readonly(
          "widths",
          [](const DensityModel& m) {
            if (PyErr_WarnEx(PyExc_DeprecationWarning,
                             "DensityModel.widths is now DensityModel.scales (the spelling of "
                             "ConditionalModel); widths goes in the next release",
                             1) != 0) {
              throw py::error_already_set();
            }
            return scales_in_user_units(m);
          },
          "Deprecated: scales.")
      .def(
          "log_pdf",
          [](const DensityModel& m, const py::array& x, double tolerance) {
            const auto xs = samples_of(x, "X");
            return vector_to_numpy(without_gil([&] {
              DensityQuery query;
              query.log_tolerance = tolerance;
              return m.mixture.log_pdf(xs, query);
            }));
          },
          py::arg("X"), py::arg("tolerance") = DensityQuery{}.log_tolerance,
          "log p(x_j) in the user's units, shape (m,); with shared widths (a Parzen window) "
          "each within `tolerance` of the exact value.")
      .def(
          "log_pdf_with_path",
          [](const DensityModel& m, const py::array& x, double tolerance) {
            const auto xs = samples_of(x, "X");
            DensityQuery query;
            query.log_tolerance = tolerance;
            Vector values = without_gil([&] { return m.mixture.log_pdf(xs, query); });
            return py::make_tuple(vector_to_numpy(std::move(values)), query.path);
          },
          py::arg("X"), py::arg("tolerance") = DensityQuery{}.log_tolerance,
          "(log_pdf(X, tolerance), path): the path is the algorithm the sums took, 'exact', "
          "'tree', 'binned' or 'gauss_transform' (the kernel-sum engine, for shared widths) or "
          "'components'.")
      .def(
          "cdf",
          [](const DensityModel& m, const py::array& x) {
            const auto xs = samples_of(x, "X");
            return vector_to_numpy(without_gil([&] { return m.mixture.cdf(xs); }));
          },
          py::arg("X"), "P(X ≤ x_j) of a 1-D density, shape (m,).")
      .def(
          "sample",
          [](const DensityModel& m, Index n, std::uint64_t seed) {
            require_memory_for(static_cast<double>(n) * static_cast<double>(m.mixture.dimension()),
                               "n_samples");
            return samples_to_numpy(without_gil([&] { return m.mixture.sample(n, seed); }));
          },
          py::arg("n"), py::arg("seed"), "n draws, shape (n, d).")
      .def(
          "mean", [](const DensityModel& m) { return vector_to_numpy(m.mixture.mean()); },
          "E[x], shape (d,).")
      .def(
          "covariance",
          [](const DensityModel& m) {
            return samples_to_numpy(m.mixture.covariance());  // symmetric: layout does not matter
          },
          "Cov[x], shape (d, d).")
      .def(
          "quantiles",
          [](const DensityModel& m, const py::array& probabilities) {
            const std::vector<double> levels = numbers_of(probabilities, "q");
            return samples_to_numpy(m.mixture.quantiles(levels));
          },
          py::arg("q"), "Marginal quantiles, shape (len(q), d).")
      .def(
          "highest_density_region",
          [](const DensityModel& m, double coverage) {
            return region_to_tuple(m.mixture.highest_density_region(coverage));
          },
          py::arg("coverage"), "(intervals of shape (k, 2), density threshold) of a 1-D density.")
      .def(
          "squared_norm", [](const DensityModel& m) { return m.mixture.squared_norm(); },
          "The integral of p(x)^2 in the user's units.")
      .def(
          "l1_test_error",
          [](const DensityModel& m, const py::array& x, const py::array& truth) {
            const auto xs = samples_of(x, "X");
            const std::vector<double> values = numbers_of(truth, "true_density");
            const Eigen::Map<const Vector> true_density(values.data(),
                                                        static_cast<Index>(values.size()));
            return without_gil([&] { return l1_test_error(m.mixture, xs, true_density); });
          },
          py::arg("X"), py::arg("true_density"),
          "L1 test error (Chen, Hong & Harris 2010, eq. 47): mean |p(x_k) - p_hat(x_k)|.")
      .def(
          "kl_divergence_on_grid",
          [](const DensityModel& m, const py::array& points, double cell_volume,
             const py::array& truth) {
            KlGrid grid{samples_of(points, "points"), cell_volume};
            const std::vector<double> values = numbers_of(truth, "true_density");
            const Eigen::Map<const Vector> true_density(values.data(),
                                                        static_cast<Index>(values.size()));
            return without_gil(
                [&] { return kl_divergence_on_grid(m.mixture, grid, true_density); });
          },
          py::arg("points"), py::arg("cell_volume"), py::arg("true_density"),
          "KL divergence by the grid sums of eqs. (49)-(50), true densities at the grid points.");
  module.def(
      "kl_divergence_grid",
      [](const py::array& lower, const py::array& upper, Index n_par) {
        const std::vector<double> low = numbers_of(lower, "lower");
        const std::vector<double> high = numbers_of(upper, "upper");
        KlGrid grid = kl_divergence_grid(
            Eigen::Map<const Vector>(low.data(), static_cast<Index>(low.size())),
            Eigen::Map<const Vector>(high.data(), static_cast<Index>(high.size())), n_par);
        return py::make_tuple(samples_to_numpy(std::move(grid.points)), grid.cell_volume);
      },
      py::arg("lower"), py::arg("upper"), py::arg("n_par"),
      "The grid of eqs. (49)-(50): (points of shape (N_par^d, d), cell volume).");
}

}  // namespace cdens::python

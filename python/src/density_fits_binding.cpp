// One fit function per unconditional density estimator. Each takes arrays already validated and
// laid out by the Python estimator class, fits with the GIL released and returns a DensityModel.

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/density/gmm.hpp"
#include "cdens/density/parzen.hpp"
#include "cdens/density/rsde.hpp"
#include "cdens/model_file.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

DensityModel fit_parzen_binding(const py::array& x, const std::optional<py::array>& widths,
                                const std::string& criterion, int threads) {
  const auto xs = samples_of(x, "X");
  ParzenOptions options;
  if (widths) options.widths = numbers_of(*widths, "bandwidth");
  options.criterion = parse_parzen_criterion(criterion);
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_parzen(xs, options); }));
}

DensityModel fit_gmm_binding(const py::array& x, Index n_components, const std::string& init,
                             int n_init, double variance_floor, double tolerance,
                             int max_iterations, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  GmmOptions options;
  options.n_components = n_components;
  options.initialization = parse_gmm_initialization(init);
  options.n_init = n_init;
  options.variance_floor = variance_floor;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.seed = seed;
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_gmm(xs, options); }));
}

DensityModel fit_rsde_binding(const py::array& x, const std::optional<py::array>& widths, int folds,
                              std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  RsdeOptions options;
  if (widths) options.widths = numbers_of(*widths, "bandwidth");
  options.folds = folds;
  options.seed = seed;
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_rsde(xs, options); }));
}

}  // namespace

void bind_density_fits(py::module_& module) {
  module.def("fit_parzen", &fit_parzen_binding, py::arg("X"), py::arg("bandwidth") = py::none(),
             py::arg("criterion") = to_string(ParzenOptions{}.criterion),
             py::arg("threads") = ParzenOptions{}.threads,
             "Parzen window; bandwidth is a candidate grid (None: a 1-D search), criterion "
             "'loo_likelihood' or 'least_squares'.");
  module.def("fit_gmm", &fit_gmm_binding, py::arg("X"),
             py::arg("n_components") = GmmOptions{}.n_components,
             py::arg("init") = to_string(GmmOptions{}.initialization),
             py::arg("n_init") = GmmOptions{}.n_init,
             py::arg("variance_floor") = GmmOptions{}.variance_floor,
             py::arg("tolerance") = GmmOptions{}.tolerance,
             py::arg("max_iterations") = GmmOptions{}.max_iterations,
             py::arg("seed") = GmmOptions{}.seed, py::arg("threads") = GmmOptions{}.threads,
             "Diagonal Gaussian mixture by EM on standardised data.");
  module.def("fit_rsde", &fit_rsde_binding, py::arg("X"), py::arg("bandwidth") = py::none(),
             py::arg("folds") = RsdeOptions{}.folds, py::arg("seed") = RsdeOptions{}.seed,
             py::arg("threads") = RsdeOptions{}.threads,
             "Reduced set density estimator; bandwidth is a candidate grid (None: 12 widths "
             "0.1 ... 2) chosen by K-fold held-out ISE.");
}

}  // namespace cdens::python

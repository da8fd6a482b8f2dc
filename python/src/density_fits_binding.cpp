// One fit function per unconditional density estimator. Each takes arrays already validated and
// laid out by the Python estimator class, fits with the GIL released and returns a DensityModel.

#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/density/gmm.hpp"
#include "cdens/density/gskd.hpp"
#include "cdens/density/parzen.hpp"
#include "cdens/density/rsde.hpp"
#include "cdens/density/skd.hpp"
#include "cdens/model_file.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

DensityModel fit_parzen_binding(const py::array& x, const std::optional<py::array>& widths,
                                const std::string& criterion, bool per_dimension, bool standardize,
                                int threads) {
  const auto xs = samples_of(x, "X");
  ParzenOptions options;
  options.per_dimension = per_dimension;
  options.standardize = standardize;
  if (widths) options.widths = numbers_of(*widths, "bandwidth");
  options.criterion = parse_parzen_criterion(criterion);
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_parzen(xs, options); }));
}

DensityModel fit_gmm_binding(const py::array& x, Index n_components, const std::string& init,
                             int n_init, double variance_floor, double tolerance,
                             int max_iterations, double box_lower, double box_upper,
                             double initial_variance, bool standardize, std::uint64_t seed,
                             int threads) {
  const auto xs = samples_of(x, "X");
  GmmOptions options;
  options.box_lower = box_lower;
  options.box_upper = box_upper;
  options.initial_variance = initial_variance;
  options.standardize = standardize;
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
                              bool standardize, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  RsdeOptions options;
  options.standardize = standardize;
  if (widths) options.widths = numbers_of(*widths, "bandwidth");
  options.folds = folds;
  options.seed = seed;
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_rsde(xs, options); }));
}

DensityModel fit_skd_binding(const py::array& x, const std::optional<py::array>& widths,
                             double target_width, int folds, bool standardize, std::uint64_t seed,
                             int threads) {
  const auto xs = samples_of(x, "X");
  SkdOptions options;
  if (widths) options.widths = numbers_of(*widths, "bandwidth");
  options.target_width = target_width;
  options.folds = folds;
  options.standardize = standardize;
  options.seed = seed;
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_skd(xs, options); }));
}

DensityModel fit_gskd_binding(const py::array& x, double target_width, int population,
                              int generations, int iterations, double variance_lower,
                              double variance_upper, bool standardize, std::uint64_t seed,
                              int threads) {
  const auto xs = samples_of(x, "X");
  GskdOptions options;
  options.target_width = target_width;
  options.population = population;
  options.generations = generations;
  options.iterations = iterations;
  options.variance_lower = variance_lower;
  options.variance_upper = variance_upper;
  options.standardize = standardize;
  options.seed = seed;
  options.threads = threads;
  return unnamed_density_model(without_gil([&] { return fit_gskd(xs, options); }));
}

}  // namespace

void bind_density_fits(py::module_& module) {
  module.def("fit_parzen", &fit_parzen_binding, py::arg("X"), py::arg("bandwidth") = py::none(),
             py::arg("criterion") = to_string(ParzenOptions{}.criterion),
             py::arg("per_dimension") = ParzenOptions{}.per_dimension,
             py::arg("standardize") = ParzenOptions{}.standardize,
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
             py::arg("box_lower") = GmmOptions{}.box_lower,
             py::arg("box_upper") = GmmOptions{}.box_upper,
             py::arg("initial_variance") = GmmOptions{}.initial_variance,
             py::arg("standardize") = GmmOptions{}.standardize, py::arg("seed") = GmmOptions{}.seed,
             py::arg("threads") = GmmOptions{}.threads,
             "Diagonal Gaussian mixture by EM (on standardised data unless standardize is False).");
  module.def("fit_rsde", &fit_rsde_binding, py::arg("X"), py::arg("bandwidth") = py::none(),
             py::arg("folds") = RsdeOptions{}.folds,
             py::arg("standardize") = RsdeOptions{}.standardize,
             py::arg("seed") = RsdeOptions{}.seed, py::arg("threads") = RsdeOptions{}.threads,
             "Reduced set density estimator; bandwidth is a candidate grid (None: 12 widths "
             "0.1 ... 2) chosen by K-fold held-out ISE.");
  module.def("fit_skd", &fit_skd_binding, py::arg("X"), py::arg("bandwidth") = py::none(),
             py::arg("target_bandwidth") = SkdOptions{}.target_width,
             py::arg("folds") = SkdOptions{}.folds,
             py::arg("standardize") = SkdOptions{}.standardize, py::arg("seed") = SkdOptions{}.seed,
             py::arg("threads") = SkdOptions{}.threads,
             "Sparse kernel density by OFR-LOO-LR and MNQP; bandwidth is a candidate grid (None: "
             "12 widths 0.1 ... 2) chosen by K-fold held-out ISE; target_bandwidth 0 is the "
             "Parzen window's choice.");
  module.def("fit_gskd", &fit_gskd_binding, py::arg("X"),
             py::arg("target_bandwidth") = GskdOptions{}.target_width,
             py::arg("population") = GskdOptions{}.population,
             py::arg("generations") = GskdOptions{}.generations,
             py::arg("iterations") = GskdOptions{}.iterations,
             py::arg("variance_lower") = GskdOptions{}.variance_lower,
             py::arg("variance_upper") = GskdOptions{}.variance_upper,
             py::arg("standardize") = GskdOptions{}.standardize,
             py::arg("seed") = GskdOptions{}.seed, py::arg("threads") = GskdOptions{}.threads,
             "Tunable-kernel sparse density by OFR-LOO with RWBS and MNQP; 0 for population, "
             "generations, iterations is the paper's setting, target_bandwidth 0 the Parzen "
             "window's choice.");
}

}  // namespace cdens::python

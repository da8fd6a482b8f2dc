// The centres and folds fit_lscde draws, for the benchmark's and the tests' numpy reference of
// LSCDE, which must fit on exactly the same draws.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/conditional/lscde.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// (centre order, fold of each pair) that fit_lscde draws with cross-validation on; see
/// LscdeDraws for how the centres of the fit and of every fold follow from the order.
py::tuple lscde_draws_binding(Index n, Index n_centers, int folds, std::uint64_t seed) {
  LscdeOptions options;
  options.n_centers = n_centers;
  options.folds = folds;
  options.seed = seed;
  const LscdeDraws draws = lscde_draws(n, options);
  py::array_t<Index> order(static_cast<py::ssize_t>(draws.center_order.size()));
  std::copy(draws.center_order.begin(), draws.center_order.end(), order.mutable_data());
  const std::vector<int> fold_of_sample = draws.folds->fold_of();
  py::array_t<int> fold_of(static_cast<py::ssize_t>(n));
  std::copy(fold_of_sample.begin(), fold_of_sample.end(), fold_of.mutable_data());
  return py::make_tuple(order, fold_of);
}

}  // namespace

void bind_lscde_draws(py::module_& module) {
  module.def("lscde_draws", &lscde_draws_binding, py::arg("n"),
             py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds, py::arg("seed") = LscdeOptions{}.seed,
             "The centre order (row indices; the fit's centres are its first n_centers rows, "
             "fold k's the first n_centers outside fold k) and the fold of every row that "
             "fit_lscde draws for n pairs when it cross-validates.");
}

}  // namespace cdens::python

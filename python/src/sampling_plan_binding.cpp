// The sampling plan of the least-squares fits (centres, then folds), for the benchmark's and the
// tests' numpy reference of LSCDE, which must fit on exactly the same draws.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/conditional/lscde.hpp"
#include "core/sampling_plan.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// (centre order, fold of each pair) of draw_sampling_plan; see SamplingPlan for how the centres
/// of the fit and of every fold follow from the order.
py::tuple sampling_plan_binding(Index n, Index n_centers, int folds, std::uint64_t seed) {
  const SamplingPlan plan = draw_sampling_plan(n, n_centers, folds, seed);
  py::array_t<Index> order(static_cast<py::ssize_t>(plan.center_order.size()));
  std::copy(plan.center_order.begin(), plan.center_order.end(), order.mutable_data());
  const std::vector<int> fold_of_sample = plan.folds->fold_of();
  py::array_t<int> fold_of(static_cast<py::ssize_t>(n));
  std::copy(fold_of_sample.begin(), fold_of_sample.end(), fold_of.mutable_data());
  return py::make_tuple(order, fold_of);
}

}  // namespace

void bind_sampling_plan(py::module_& module) {
  module.def("sampling_plan", &sampling_plan_binding, py::arg("n"),
             py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds, py::arg("seed") = LscdeOptions{}.seed,
             "The centre order (row indices; the fit's centres are its first n_centers rows, "
             "fold k's the first n_centers outside fold k) and the fold of every row that "
             "LSCDE, SA-CDE and LSCE draw for n pairs when they cross-validate.");
}

}  // namespace cdens::python

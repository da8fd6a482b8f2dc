// One fit function per conditional estimator. Each takes arrays already validated and laid out
// by the Python estimator class, fits with the GIL released and returns a ConditionalModel.

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/model_file.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

ConditionalModel fit_lscde_binding(const py::array& x, const py::array& y,
                                   const std::optional<py::array>& unlabeled_x,
                                   const std::optional<py::array>& sigmas,
                                   const std::optional<py::array>& lambdas, Index n_centers,
                                   int folds, const std::string& cv_loss, std::uint64_t seed,
                                   int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  const Matrix no_unlabeled(xs.rows(), 0);
  const MatrixView unlabeled =
      unlabeled_x ? MatrixView(samples_of(*unlabeled_x, "X_unlabeled")) : MatrixView(no_unlabeled);
  LscdeOptions options;
  if (sigmas) options.sigmas = numbers_of(*sigmas, "sigma");
  if (lambdas) options.lambdas = numbers_of(*lambdas, "regularization");
  options.n_centers = n_centers;
  options.folds = folds;
  options.cv_loss = parse_cv_loss(cv_loss);
  options.seed = seed;
  options.threads = threads;
  LscdeFit fit = without_gil([&] { return fit_lscde(xs, ys, unlabeled, options); });
  return {std::move(fit.model), {}, {}, std::move(fit.report)};
}

/// (centres, fold of each pair) that fit_lscde draws with cross-validation on.
py::tuple lscde_draws_binding(Index n, Index n_centers, int folds, std::uint64_t seed) {
  LscdeOptions options;
  options.n_centers = n_centers;
  options.folds = folds;
  options.seed = seed;
  const LscdeDraws draws = lscde_draws(n, options);
  py::array_t<Index> centers(static_cast<py::ssize_t>(draws.centers.size()));
  std::copy(draws.centers.begin(), draws.centers.end(), centers.mutable_data());
  py::array_t<int> fold_of(static_cast<py::ssize_t>(n));
  for (int k = 0; k < draws.folds->n_folds(); ++k) {
    for (const Index i : draws.folds->test(k)) fold_of.mutable_at(i) = k;
  }
  return py::make_tuple(centers, fold_of);
}

}  // namespace

void bind_conditional_fits(py::module_& module) {
  module.def("fit_lscde", &fit_lscde_binding, py::arg("X"), py::arg("Y"),
             py::arg("X_unlabeled") = py::none(), py::arg("sigma") = py::none(),
             py::arg("regularization") = py::none(),
             py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds,
             py::arg("cv_loss") = to_string(LscdeOptions{}.cv_loss),
             py::arg("seed") = LscdeOptions{}.seed, py::arg("threads") = LscdeOptions{}.threads,
             "LSCDE (Sugiyama et al. 2010); sigma and regularization are candidate grids "
             "(None: the paper's).");
  module.def("lscde_draws", &lscde_draws_binding, py::arg("n"),
             py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds, py::arg("seed") = LscdeOptions{}.seed,
             "The basis centres (row indices) and the fold of every row that fit_lscde draws "
             "for n pairs when it cross-validates.");
}

}  // namespace cdens::python

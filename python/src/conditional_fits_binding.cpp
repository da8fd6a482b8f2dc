// One fit function per conditional estimator. Each takes arrays already validated and laid out
// by the Python estimator class, fits with the GIL released and returns a ConditionalModel.

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/conditional/epsilon_kde.hpp"
#include "cdens/conditional/forward_selection.hpp"
#include "cdens/conditional/lsce.hpp"
#include "cdens/conditional/linear_gaussian.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/nadaraya_watson_cde.hpp"
#include "cdens/conditional/product_kernel_cde.hpp"
#include "cdens/conditional/rkde.hpp"
#include "cdens/conditional/sa_lscde.hpp"
#include "cdens/conditional/sacde.hpp"
#include "cdens/core/error.hpp"
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
  return unnamed_model(without_gil([&] { return fit_lscde(xs, ys, unlabeled, options); }));
}

/// The options every kernel estimator takes: the σ grid (None: the method's), seed, threads.
template <class Options>
Options kernel_options(const std::optional<py::array>& sigmas, std::uint64_t seed, int threads) {
  Options options;
  if (sigmas) options.sigmas = numbers_of(*sigmas, "sigma");
  options.seed = seed;
  options.threads = threads;
  return options;
}

ConditionalModel fit_epsilon_kde_binding(const py::array& x, const py::array& y,
                                         const std::optional<py::array>& epsilons,
                                         const std::optional<py::array>& sigmas, int folds,
                                         std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  auto options = kernel_options<EpsilonKdeOptions>(sigmas, seed, threads);
  if (epsilons) options.epsilons = numbers_of(*epsilons, "epsilon");
  options.folds = folds;
  return unnamed_model(without_gil([&] { return fit_epsilon_kde(xs, ys, options); }));
}

ConditionalModel fit_nadaraya_watson_cde_binding(const py::array& x, const py::array& y,
                                                 const std::optional<py::array>& sigmas,
                                                 Index n_centers, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  auto options = kernel_options<NadarayaWatsonCdeOptions>(sigmas, seed, threads);
  options.n_centers = n_centers;
  return unnamed_model(without_gil([&] { return fit_nadaraya_watson_cde(xs, ys, options); }));
}

ConditionalModel fit_rkde_binding(const py::array& x, const py::array& y,
                                  const std::optional<py::array>& sigmas, int folds,
                                  std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  auto options = kernel_options<RkdeOptions>(sigmas, seed, threads);
  options.folds = folds;
  return unnamed_model(without_gil([&] { return fit_rkde(xs, ys, options); }));
}

ConditionalModel fit_product_kernel_cde_binding(const py::array& x, const py::array& y,
                                                const std::optional<py::array>& bandwidths,
                                                const std::string& trend, Index exact_limit, Index subsample_held_out,
                                                Index screening_held_out,
                                                int restarts,
                                                double bandwidth_lower, double bandwidth_upper,
                                                int max_evaluations, std::uint64_t seed,
                                                int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  ProductKernelCdeOptions options;
  if (bandwidths) options.bandwidths = numbers_of(*bandwidths, "bandwidth");
  options.trend = parse_kernel_trend(trend);
  options.exact_limit = exact_limit;
  options.subsample_held_out = subsample_held_out;
  options.screening_held_out = screening_held_out;
  options.restarts = restarts;
  options.bandwidth_lower = bandwidth_lower;
  options.bandwidth_upper = bandwidth_upper;
  options.max_evaluations = max_evaluations;
  options.seed = seed;
  options.threads = threads;
  return unnamed_model(without_gil([&] { return fit_product_kernel_cde(xs, ys, options); }));
}

ConditionalModel fit_linear_gaussian_binding(const py::array& x, const py::array& y) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  return unnamed_model(without_gil([&] { return fit_linear_gaussian(xs, ys); }));
}

/// (model, traces): LSCE or an LSMI combination (method "lsce", "lsce-ekde", "lsmi-lscde",
/// "lsmi-ekde"); traces holds J after each update of W for every start of the chosen d_z.
py::tuple fit_reduced_cde_binding(const py::array& x, const py::array& y, const std::string& method,
                                  Index dz, int restarts, const std::optional<py::array>& sigmas,
                                  const std::optional<py::array>& lambdas,
                                  const std::optional<py::array>& epsilons, Index n_centers,
                                  int folds, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  const ReducedCdeMethod parsed = parse_reduced_cde_method(method);
  ReducedCdeOptions options;
  ReductionOptions& reduction = options.reduction;
  if (sigmas) reduction.sigmas = numbers_of(*sigmas, "sigma");
  if (lambdas) reduction.lambdas = numbers_of(*lambdas, "regularization");
  if (epsilons) options.epsilon_kde.epsilons = numbers_of(*epsilons, "epsilon");
  reduction.dz = dz;
  reduction.restarts = restarts;
  reduction.n_centers = n_centers;
  reduction.folds = folds;
  options.epsilon_kde.folds = folds;
  reduction.seed = seed;
  reduction.threads = threads;
  ReducedCdeFit fit = without_gil([&] { return fit_reduced_cde(xs, ys, parsed, options); });
  py::list traces;
  for (const auto& trace : fit.traces) {
    traces.append(vector_to_numpy(
        Vector(Eigen::Map<const Vector>(trace.data(), static_cast<Index>(trace.size())))));
  }
  return py::make_tuple(unnamed_model(std::move(fit)), traces);
}

/// SA-CDE's options from the arguments every feature-selecting fit takes.
SaCdeOptions sacde_options(const std::optional<py::array>& sigmas,
                           const std::optional<py::array>& lambdas, Index n_centers, int folds,
                           std::uint64_t seed, int threads) {
  SaCdeOptions options;
  if (sigmas) options.sigmas = numbers_of(*sigmas, "sigma");
  if (lambdas) options.lambdas = numbers_of(*lambdas, "regularization");
  options.n_centers = n_centers;
  options.folds = folds;
  options.seed = seed;
  options.threads = threads;
  return options;
}

ConditionalModel fit_sacde_binding(const py::array& x, const py::array& y,
                                   const std::optional<py::array>& sigmas,
                                   const std::optional<py::array>& lambdas, Index n_centers,
                                   int folds, double tolerance, const std::string& lambda_rule,
                                   std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  SaCdeOptions options = sacde_options(sigmas, lambdas, n_centers, folds, seed, threads);
  options.solver.kkt_tolerance = tolerance;
  if (lambda_rule == "min") {
    options.lambda_rule = SaCdeLambdaRule::minimum;
  } else if (lambda_rule != "1se") {
    throw InvalidArgument("lambda_rule must be '1se' or 'min', not '" + lambda_rule + "'");
  }
  return unnamed_model(without_gil([&] { return fit_sacde(xs, ys, options); }));
}

ConditionalModel fit_sa_lscde_binding(const py::array& x, const py::array& y,
                                      const std::optional<py::array>& sigmas,
                                      const std::optional<py::array>& lambdas, Index n_centers,
                                      int folds, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  SaLscdeOptions options;
  options.selection = sacde_options(sigmas, lambdas, n_centers, folds, seed, threads);
  options.estimation.sigmas = options.selection.sigmas;
  options.estimation.lambdas = options.selection.lambdas;
  options.estimation.n_centers = n_centers;
  options.estimation.folds = folds;
  options.estimation.seed = seed;
  options.estimation.threads = threads;
  return unnamed_model(without_gil([&] { return fit_sa_lscde(xs, ys, options); }));
}

/// Forward selection around LSCDE, ε-KDE or NW-CDE with the SA-CDE paper's grids (§3, §3.1);
/// the wrapped fits run on one thread each, the candidates of a step in parallel.
ConditionalModel fit_forward_selection_binding(const py::array& x, const py::array& y,
                                               const std::string& estimator, Index n_centers,
                                               int folds, std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  SubsetFit fit;
  if (estimator == "lscde") {
    LscdeOptions options = SaLscdeOptions::paper_estimation_options();
    options.n_centers = n_centers;
    options.folds = folds;
    options.seed = seed;
    options.threads = 1;
    fit = [options](const MatrixView& sx, const MatrixView& sy) {
      return as_conditional_fit(fit_lscde(sx, sy, options));
    };
  } else if (estimator == "ekde") {
    EpsilonKdeOptions options;
    options.folds = folds;
    options.seed = seed;
    options.threads = 1;
    fit = [options](const MatrixView& sx, const MatrixView& sy) {
      return as_conditional_fit(fit_epsilon_kde(sx, sy, options));
    };
  } else if (estimator == "nwcde") {
    NadarayaWatsonCdeOptions options;
    options.n_centers = n_centers;
    options.seed = seed;
    options.threads = 1;
    fit = [options](const MatrixView& sx, const MatrixView& sy) {
      return as_conditional_fit(fit_nadaraya_watson_cde(sx, sy, options));
    };
  } else {
    throw InvalidArgument("unknown estimator '" + estimator +
                          "' for forward selection (lscde, ekde or nwcde)");
  }
  ForwardSelectionOptions options;
  options.method = "fw-" + estimator;
  options.threads = threads;
  const ConditionalFit result =
      without_gil([&] { return fit_forward_selection(xs, ys, fit, options); });
  return {result.model, {}, {}, result.report};
}

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
  module.def("fit_epsilon_kde", &fit_epsilon_kde_binding, py::arg("X"), py::arg("Y"),
             py::arg("epsilon") = py::none(), py::arg("sigma") = py::none(),
             py::arg("folds") = EpsilonKdeOptions{}.folds,
             py::arg("seed") = EpsilonKdeOptions{}.seed,
             py::arg("threads") = EpsilonKdeOptions{}.threads,
             "epsilon-KDE; epsilon (ball radii) and sigma are candidate grids (None: the "
             "SA-CDE paper's).");
  module.def("fit_nadaraya_watson_cde", &fit_nadaraya_watson_cde_binding, py::arg("X"),
             py::arg("Y"), py::arg("sigma") = py::none(),
             py::arg("n_centers") = NadarayaWatsonCdeOptions{}.n_centers,
             py::arg("seed") = NadarayaWatsonCdeOptions{}.seed,
             py::arg("threads") = NadarayaWatsonCdeOptions{}.threads,
             "NW-CDE (SA-CDE paper eq. 25); sigma is a candidate grid chosen by leave-one-out "
             "(None: the SA-CDE paper's).");
  module.def("fit_rkde", &fit_rkde_binding, py::arg("X"), py::arg("Y"),
             py::arg("sigma") = py::none(), py::arg("folds") = RkdeOptions{}.folds,
             py::arg("seed") = RkdeOptions{}.seed, py::arg("threads") = RkdeOptions{}.threads,
             "Ratio of kernel density estimates; sigma is the candidate grid of both KDEs "
             "(None: the LSCDE paper's).");
  module.def("fit_product_kernel_cde", &fit_product_kernel_cde_binding, py::arg("X"),
             py::arg("Y"), py::arg("bandwidth") = py::none(),
             py::arg("trend") = to_string(ProductKernelCdeOptions{}.trend),
             py::arg("exact_limit") = ProductKernelCdeOptions{}.exact_limit,
             py::arg("subsample_held_out") = ProductKernelCdeOptions{}.subsample_held_out,
             py::arg("screening_held_out") = ProductKernelCdeOptions{}.screening_held_out,
             py::arg("restarts") = ProductKernelCdeOptions{}.restarts,
             py::arg("bandwidth_lower") = ProductKernelCdeOptions{}.bandwidth_lower,
             py::arg("bandwidth_upper") = ProductKernelCdeOptions{}.bandwidth_upper,
             py::arg("max_evaluations") = ProductKernelCdeOptions{}.max_evaluations,
             py::arg("seed") = ProductKernelCdeOptions{}.seed,
             py::arg("threads") = ProductKernelCdeOptions{}.threads,
             "Product-kernel CDE with one bandwidth per dimension by leave-one-out likelihood "
             "(bandwidth: fixed values, inputs then outputs; None searches).");
  module.def("fit_linear_gaussian", &fit_linear_gaussian_binding, py::arg("X"), py::arg("Y"),
             "The linear-Gaussian conditional density by least squares.");
  module.def("fit_reduced_cde", &fit_reduced_cde_binding, py::arg("X"), py::arg("Y"),
             py::arg("method") = "lsce", py::arg("dz") = ReductionOptions{}.dz,
             py::arg("restarts") = ReductionOptions{}.restarts, py::arg("sigma") = py::none(),
             py::arg("regularization") = py::none(), py::arg("epsilon") = py::none(),
             py::arg("n_centers") = ReductionOptions{}.n_centers,
             py::arg("folds") = ReductionOptions{}.folds,
             py::arg("seed") = ReductionOptions{}.seed,
             py::arg("threads") = ReductionOptions{}.threads,
             "LSCE or LSMI dimension reduction with LSCDE or epsilon-KDE on the projection; "
             "returns (model, traces). dz = 0 chooses d_z by cross-validation.");
  module.def(
      "fit_sacde", &fit_sacde_binding, py::arg("X"), py::arg("Y"), py::arg("sigma") = py::none(),
      py::arg("regularization") = py::none(), py::arg("n_centers") = SaCdeOptions{}.n_centers,
      py::arg("folds") = SaCdeOptions{}.folds,
      py::arg("tolerance") = SaCdeOptions{}.solver.kkt_tolerance, py::arg("lambda_rule") = "1se",
      py::arg("seed") = SaCdeOptions{}.seed, py::arg("threads") = SaCdeOptions{}.threads,
      "SA-CDE (Shiga et al. 2015); sigma and regularization are candidate grids (None: "
      "the paper's twenty values in [0.01, 2]).");
  module.def("fit_sa_lscde", &fit_sa_lscde_binding, py::arg("X"), py::arg("Y"),
             py::arg("sigma") = py::none(), py::arg("regularization") = py::none(),
             py::arg("n_centers") = SaCdeOptions{}.n_centers,
             py::arg("folds") = SaCdeOptions{}.folds, py::arg("seed") = SaCdeOptions{}.seed,
             py::arg("threads") = SaCdeOptions{}.threads,
             "SA-LSCDE: SA-CDE selects features, LSCDE estimates on them; both stages use the "
             "grids given (None: the paper's).");
  module.def("fit_forward_selection", &fit_forward_selection_binding, py::arg("X"), py::arg("Y"),
             py::arg("estimator"), py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds, py::arg("seed") = LscdeOptions{}.seed,
             py::arg("threads") = LscdeOptions{}.threads,
             "Forward feature selection around 'lscde', 'ekde' or 'nwcde' (SA-CDE paper 3.1).");
  module.def("lscde_draws", &lscde_draws_binding, py::arg("n"),
             py::arg("n_centers") = LscdeOptions{}.n_centers,
             py::arg("folds") = LscdeOptions{}.folds, py::arg("seed") = LscdeOptions{}.seed,
             "The centre order (row indices; the fit's centres are its first n_centers rows, "
             "fold k's the first n_centers outside fold k) and the fold of every row that "
             "fit_lscde draws for n pairs when it cross-validates.");
}

}  // namespace cdens::python

// PRESS regression (Goerg 2017): the fit, with or without AIC selection of J, and the queries
// only PRESS models answer (state weights, the state summary). Everything else about the fitted
// model is the ConditionalModel's.

#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/model_file.hpp"
#include "cdens/regression/press.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// (model, training arrays) of a fit: the state weights W (n, J), ŷ, s_ii and η_i of the
/// training inputs, which a model file does not keep.
py::tuple fit_result(PressFit fit) {
  py::dict training;
  training["weights"] = samples_to_numpy(std::move(fit.training_weights));
  training["fitted"] = vector_to_numpy(std::move(fit.fitted));
  training["smoother_diagonal"] = vector_to_numpy(std::move(fit.smoother_diagonal));
  training["entropies"] = vector_to_numpy(std::move(fit.entropies));
  return py::make_tuple(unnamed_model(std::move(fit)), training);
}

py::tuple fit_press_binding(const py::array& x, const py::array& y, Index n_states,
                            Index max_states, const std::string& criterion,
                            const std::string& optimizer, double learning_rate,
                            double smoothness_weight, double target_dof, double lasso_weight,
                            double holdout_fraction, int patience, int max_evaluations,
                            int restarts, double init_scale, bool standardize_inputs, bool single_precision,
                            std::uint64_t seed, int threads) {
  const auto xs = samples_of(x, "X");
  const auto ys = samples_of(y, "Y");
  PressOptions options;
  options.n_states = n_states;
  options.criterion = parse_press_criterion(criterion);
  options.optimizer = parse_press_optimizer(optimizer);
  options.learning_rate = learning_rate;
  options.smoothness_weight = smoothness_weight;
  options.target_dof = target_dof;
  options.lasso_weight = lasso_weight;
  options.holdout_fraction = holdout_fraction;
  options.patience = patience;
  options.max_evaluations = max_evaluations;
  options.restarts = restarts;
  options.init_scale = init_scale;
  options.standardize_inputs = standardize_inputs;
  options.single_precision = single_precision;
  options.seed = seed;
  options.threads = threads;
  return fit_result(without_gil([&] {
    if (max_states > 0) {
      PressSelection selection = select_press_states(xs, ys, max_states, options);
      return std::move(selection.fits[static_cast<std::size_t>(selection.best)]);
    }
    return fit_press(xs, ys, options);
  }));
}

}  // namespace

void bind_press(py::module_& module) {
  const PressOptions defaults;
  module.def("fit_press", &fit_press_binding, py::arg("X"), py::arg("Y"),
             py::arg("n_states") = defaults.n_states, py::arg("max_states") = 0,
             py::arg("criterion") = to_string(defaults.criterion),
             py::arg("optimizer") = to_string(defaults.optimizer),
             py::arg("learning_rate") = defaults.learning_rate,
             py::arg("smoothness_weight") = defaults.smoothness_weight,
             py::arg("target_dof") = defaults.target_dof,
             py::arg("lasso_weight") = defaults.lasso_weight,
             py::arg("holdout_fraction") = defaults.holdout_fraction,
             py::arg("patience") = defaults.patience,
             py::arg("max_evaluations") = defaults.max_evaluations,
             py::arg("restarts") = defaults.restarts, py::arg("init_scale") = defaults.init_scale,
             py::arg("standardize_inputs") = defaults.standardize_inputs,
             py::arg("single_precision") = defaults.single_precision,
             py::arg("seed") = defaults.seed, py::arg("threads") = defaults.threads,
             "PRESS (Goerg 2017) with J = n_states (0: round(log n)), or J = 1 ... max_states by "
             "AIC when max_states > 0. Returns (model, training arrays).");
  module.def(
      "press_state_weights",
      [](const ConditionalModel& model, const py::array& x) {
        const auto xs = samples_of(x, "X");
        return samples_to_numpy(
            without_gil([&] { return press_state_weights(model.mixture, xs); }));
      },
      py::arg("model"), py::arg("X"), "State weights w(x) of a PRESS model, shape (n, J).");
  module.def(
      "press_state_summary",
      [](const ConditionalModel& model) {
        PressStateSummary summary = press_state_summary(model.mixture);
        py::dict result;
        result["coefficients"] = samples_to_numpy(std::move(summary.coefficients));
        result["state_means"] = vector_to_numpy(std::move(summary.state_means));
        result["state_sizes"] = vector_to_numpy(std::move(summary.state_sizes));
        return result;
      },
      py::arg("model"),
      "Coefficients (J, d + 1; column 0 the intercepts, user units), state means and sizes.");
}

}  // namespace cdens::python

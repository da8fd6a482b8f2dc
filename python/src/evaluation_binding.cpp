// The evaluation library (include/cdens/evaluation/) for the cdens.metrics module: per-pair
// scores and HPD values of either model shape, whole evaluations and comparisons (as the JSON
// the command writes), the uniformity test and the binomial band.

#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cdens/core/types.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/evaluation/scores.hpp"
#include "cdens/model_file.hpp"
#include "python_progress.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// A model of either shape with its query pairs: a conditional model's (X, Y), or a density
/// model's points X as the outputs of its conditional view (Y must then be None).
struct QueryPairs {
  ConditionalMixture mixture;
  Matrix x;
  Matrix y;
};

QueryPairs pairs_of(const py::object& model, const py::array& x, const py::object& y) {
  if (py::isinstance<DensityModel>(model)) {
    if (!y.is_none()) throw InvalidArgument("a density model p(x) is scored on X alone, not Y");
    const Matrix points = samples_of(x, "X");
    return {density_as_conditional(model.cast<const DensityModel&>().mixture),
            density_inputs(points.cols()), points};
  }
  if (y.is_none()) throw InvalidArgument("a conditional model p(y|x) is scored on pairs: give Y");
  return {model.cast<const ConditionalModel&>().mixture, samples_of(x, "X"),
          samples_of(y.cast<py::array>(), "Y")};
}

/// A score of one value per pair as a function (model, X, Y=None) returning shape (n,).
template <class Score>
auto pair_score(Score score) {
  return [score](const py::object& model, const py::array& x, const py::object& y) {
    QueryPairs pairs = pairs_of(model, x, y);
    return vector_to_numpy(without_gil([&] { return score(pairs.mixture, pairs.x, pairs.y); }));
  };
}

EvaluationOptions options_of(const std::vector<double>& pinball_levels,
                             const std::vector<double>& interval_levels, Index bins, Index draws,
                             std::uint64_t seed, std::vector<std::string> scores) {
  EvaluationOptions options;
  options.scores = std::move(scores);
  options.pinball_levels = pinball_levels;
  options.interval_levels = interval_levels;
  options.histogram_bins = bins;
  options.draws = draws;
  options.seed = seed;
  return options;
}

}  // namespace

void bind_evaluation(py::module_& module) {
  py::class_<ModelEvaluation>(module, "Evaluation",
                              "Scores and calibration of a model on held-out data.")
      .def("to_json", [](const ModelEvaluation& e) { return evaluation_to_json(e).dump(); });
  module.def("crps", pair_score(&crps), py::arg("model"), py::arg("X"), py::arg("Y") = py::none(),
             "CRPS per pair, closed form of the Gaussian mixture (one-dimensional y).");
  module.def("cde_losses", pair_score(&cde_losses), py::arg("model"), py::arg("X"),
             py::arg("Y") = py::none(), "∫p̂(y|x_i)² dy − 2 p̂(y_i|x_i) per pair.");
  module.def("ranked_probability_scores", pair_score(&ranked_probability_scores), py::arg("model"),
             py::arg("X"), py::arg("Y"),
             "Ranked probability score per pair (one ordered discrete y).");
  module.def("brier_scores", pair_score(&brier_scores), py::arg("model"), py::arg("X"),
             py::arg("Y"), "Brier score per pair (a y whose every output is discrete).");
  module.def(
      "pinball_losses",
      [](const py::object& model, const py::array& x, const py::object& y,
         const std::vector<double>& levels) {
        QueryPairs pairs = pairs_of(model, x, y);
        return samples_to_numpy(
            without_gil([&] { return pinball_losses(pairs.mixture, pairs.x, pairs.y, levels); }));
      },
      py::arg("model"), py::arg("X"), py::arg("Y"), py::arg("levels"),
      "Pinball losses, shape (n, len(levels)).");
  module.def(
      "energy_scores",
      [](const py::object& model, const py::array& x, const py::object& y, Index draws,
         std::uint64_t seed) {
        QueryPairs pairs = pairs_of(model, x, y);
        EnergyScores scores = without_gil(
            [&] { return energy_scores(pairs.mixture, pairs.x, pairs.y, draws, seed); });
        return py::make_tuple(vector_to_numpy(std::move(scores.values)),
                              vector_to_numpy(std::move(scores.standard_errors)));
      },
      py::arg("model"), py::arg("X"), py::arg("Y"), py::arg("draws"), py::arg("seed"),
      "(energy scores, their Monte-Carlo standard errors), each of shape (n,).");
  module.def(
      "highest_density_values",
      [](const py::object& model, const py::array& x, const py::object& y, Index draws,
         std::uint64_t seed) {
        QueryPairs pairs = pairs_of(model, x, y);
        return vector_to_numpy(without_gil([&] {
          return highest_density_values(pairs.mixture, pairs.x, pairs.y, draws, seed).values;
        }));
      },
      py::arg("model"), py::arg("X"), py::arg("Y"), py::arg("draws"), py::arg("seed"),
      "HPD values per pair: exact for one-dimensional y (randomised for a discrete one), from "
      "`draws` draws otherwise.");
  module.def(
      "pit",
      [](const py::object& model, const py::array& x, const py::object& y, std::uint64_t seed) {
        QueryPairs pairs = pairs_of(model, x, y);
        return vector_to_numpy(
            without_gil([&] { return pit_values(pairs.mixture, pairs.x, pairs.y, seed); }));
      },
      py::arg("model"), py::arg("X"), py::arg("Y"), py::arg("seed"),
      "PIT values (1-D y; randomised for an ordered discrete y).");
  module.def(
      "evaluate",
      [](const py::object& model, const py::array& x, const py::object& y,
         const std::vector<double>& pinball_levels, const std::vector<double>& interval_levels,
         Index bins, Index draws, std::uint64_t seed, std::vector<std::string> scores, long verbose,
         const std::string& label) {
        QueryPairs pairs = pairs_of(model, x, y);
        const EvaluationOptions options =
            options_of(pinball_levels, interval_levels, bins, draws, seed, std::move(scores));
        PythonProgress shown(verbose, label);
        return without_gil([&] {
          return evaluate_model(pairs.mixture, pairs.x, pairs.y, options, shown.progress());
        });
      },
      py::arg("model"), py::arg("X"), py::arg("Y"), py::arg("pinball_levels"),
      py::arg("interval_levels"), py::arg("bins"), py::arg("draws"), py::arg("seed"),
      py::arg("scores") = std::vector<std::string>(), py::arg("verbose") = 0,
      py::arg("label") = std::string(),
      "Every score of the model on the pairs; verbose 1: the progress of its slow stages on "
      "sys.stderr, each label starting with `label`.");
  module.def("evaluation_score_names", &evaluation_score_names,
             "The names evaluate's scores take.");
  module.def(
      "compare",
      [](const std::vector<ModelEvaluation>& evaluations, const std::vector<std::string>& names) {
        return comparison_to_json(compare_evaluations(evaluations, names)).dump();
      },
      py::arg("evaluations"), py::arg("names"), "The comparison as JSON text.");
  module.def(
      "uniformity_test",
      [](const py::array& values) {
        const UniformityTest test =
            uniformity_test(samples_of(values, "values").row(0).transpose());
        return py::make_tuple(test.statistic, test.p_value);
      },
      py::arg("values"), "(Kolmogorov-Smirnov D, p-value) against Uniform(0, 1).");
  module.def(
      "binomial_band",
      [](Index n, double p, double level) {
        const ShareBand band = binomial_band(n, p, level);
        return py::make_tuple(band.lower, band.upper);
      },
      py::arg("n"), py::arg("p"), py::arg("level"));
}

}  // namespace cdens::python

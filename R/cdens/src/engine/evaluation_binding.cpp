// Scores, evaluations and comparisons of fitted models on held-out data from R, by the engine of
// `cdens evaluate` and `cdens compare` (include/cdens/evaluation/). A density model p(x) is scored
// as the conditional mixture of x given nothing (evaluation.hpp): its points are the outputs and
// y is NULL.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "cdens/evaluation/evaluation.hpp"
#include "cdens/evaluation/scores.hpp"
#include "entry_points.hpp"
#include "guard.hpp"
#include "json_to_r.hpp"
#include "models.hpp"
#include "r_progress.hpp"

using namespace cdens;
using namespace cdens::r;

namespace {

/// A model of either shape with its query pairs.
struct QueryPairs {
  ConditionalMixture mixture;
  Matrix x;
  Matrix y;
};

QueryPairs pairs_of(SEXP model, SEXP x, SEXP y) {
  if (holds<DensityModel>(model)) {
    if (!Rf_isNull(y)) throw InvalidArgument("a density model p(x) is scored on x alone");
    Matrix points = samples_of(x, "x");
    const Index n = points.cols();
    return {density_as_conditional(model_of<DensityModel>(model).mixture), density_inputs(n),
            std::move(points)};
  }
  if (Rf_isNull(y)) throw InvalidArgument("a conditional model p(y|x) is scored on pairs: give y");
  return {model_of<ConditionalModel>(model).mixture, samples_of(x, "x"), samples_of(y, "y")};
}

EvaluationOptions evaluation_options(SEXP options) {
  const Rcpp::List given(options);
  EvaluationOptions result;
  result.pinball_levels = numbers_of(given["pinball_levels"], "pinball_levels");
  result.interval_levels = numbers_of(given["interval_levels"], "interval_levels");
  result.histogram_bins = integer_of(given["bins"], "bins");
  result.draws = integer_of(given["draws"], "draws");
  result.seed = static_cast<std::uint64_t>(integer_of(given["seed"], "seed"));
  result.scores = strings_of(given["scores"], "scores");
  return result;
}

}  // namespace

extern "C" SEXP cdens_crps(SEXP model, SEXP x, SEXP y) {
  return guarded([&] {
    const QueryPairs pairs = pairs_of(model, x, y);
    return Rcpp::wrap(vector_to_r(crps(pairs.mixture, pairs.x, pairs.y)));
  });
}

extern "C" SEXP cdens_pinball(SEXP model, SEXP x, SEXP y, SEXP levels) {
  return guarded([&] {
    const QueryPairs pairs = pairs_of(model, x, y);
    const std::vector<double> taus = numbers_of(levels, "levels");
    return Rcpp::wrap(samples_to_r(pinball_losses(pairs.mixture, pairs.x, pairs.y, taus)));
  });
}

extern "C" SEXP cdens_evaluate(SEXP model, SEXP x, SEXP y, SEXP options, SEXP verbose, SEXP label) {
  return guarded([&] {
    const QueryPairs pairs = pairs_of(model, x, y);
    const EvaluationOptions settings = evaluation_options(options);
    RProgress progress(flag_of(verbose, "verbose"), string_of(label, "label"));
    ModelEvaluation evaluation =
        evaluate_model(pairs.mixture, pairs.x, pairs.y, settings, progress);
    progress.flush();
    Rcpp::RObject report = json_to_r(evaluation_to_json(evaluation));
    return Rcpp::wrap(Rcpp::List::create(Rcpp::Named("handle") = Rcpp::XPtr<ModelEvaluation>(
                                             new ModelEvaluation(std::move(evaluation)), true,
                                             Rf_install(model_tag<ModelEvaluation>())),
                                         Rcpp::Named("report") = report));
  });
}

extern "C" SEXP cdens_compare(SEXP evaluations, SEXP names) {
  return guarded([&] {
    const Rcpp::List handles(evaluations);
    std::vector<ModelEvaluation> each;
    for (R_xlen_t k = 0; k < handles.size(); ++k) {
      each.push_back(model_of<ModelEvaluation>(handles[k]));
    }
    return Rcpp::wrap(
        json_to_r(comparison_to_json(compare_evaluations(each, strings_of(names, "names")))));
  });
}

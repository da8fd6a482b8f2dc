#include "cdens/conditional/forward_selection.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "conditional/selected_features_gate.hpp"
#include "core/fit_skeleton.hpp"
#include "core/validate.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// The smallest mean held-out NLL of the fit's cross-validation table.
double cross_validated_nll(const FitReport& report) {
  if (!report.cross_validation || report.cross_validation->loss != "kl" ||
      report.cross_validation->best < 0) {
    throw InvalidArgument(
        "forward selection needs an estimator that chooses its hyper-parameters by "
        "cross-validated negative log-likelihood (give it more than one candidate)");
  }
  return report.cross_validation->mean_loss(report.cross_validation->best);
}

/// A candidate feature set and its fit.
struct Candidate {
  std::vector<Index> features;  ///< increasing
  ConditionalFit fit;
  double nll;
};

}  // namespace

ConditionalFit fit_forward_selection(const MatrixView& x, const MatrixView& y, const SubsetFit& fit,
                                     const ForwardSelectionOptions& options,
                                     const FitContext& context) {
  return timed_fit<ConditionalMixture>(options.method, [&](FitReport& report) {
    const Communicator& communicator = context.communicator;
    int threads = 1;
    agree_on_errors(communicator, [&] {
      require_training_shard(x, y, communicator);
      // Collective calls come from one thread: on many ranks the candidates take turns.
      if (communicator.size() == 1) threads = resolve_threads(context.threads);
    });
    require_equal_on_every_rank(communicator,
                                {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                                "the dimensions of x and y");
    const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
    const Standardizer x_scaling = Standardizer::fit(x, communicator, "x", x_names);
    // The candidates' fits see a subset of the inputs and no names: a constant output is refused
    // here, where its name is known.
    Standardizer::fit(y, communicator, "y", y_names);
    const Index features = x.rows();

    std::vector<Index> selected;
    std::vector<Index> remaining(static_cast<std::size_t>(features));
    for (Index d = 0; d < features; ++d) remaining[static_cast<std::size_t>(d)] = d;
    std::optional<Candidate> best;
    Vector importances = Vector::Zero(features);
    std::vector<double> step_features;
    std::vector<double> step_nll;
    while (!remaining.empty()) {
      std::vector<std::optional<Candidate>> candidates(remaining.size());
      // A round per added feature; how many rounds the selection makes is not known ahead.
      context.progress.begin("forward selection, feature " + std::to_string(selected.size() + 1) +
                                 " of at most " + std::to_string(features) + ": candidate fits",
                             static_cast<Index>(remaining.size()));
      parallel_for(threads, static_cast<Index>(remaining.size()), [&](Index c) {
        std::vector<Index> set = selected;
        set.push_back(remaining[static_cast<std::size_t>(c)]);
        std::sort(set.begin(), set.end());
        ConditionalFit result = fit(x(set, Eigen::all), y);
        const double nll = cross_validated_nll(result.report);
        candidates[static_cast<std::size_t>(c)] = Candidate{set, std::move(result), nll};
        context.progress.advance();
      });
      context.progress.end();
      std::size_t winner = 0;
      double worst = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (candidates[c]->nll < candidates[winner]->nll) winner = c;
        worst = std::max(worst, candidates[c]->nll);
      }
      const double nll = candidates[winner]->nll;
      if (best && !(nll < best->nll)) break;  // no candidate lowers the CV NLL: stop
      const Index added = remaining[winner];
      // The first feature is measured against the least useful single feature.
      importances(added) = (best ? best->nll : worst) - nll;
      selected.push_back(added);
      remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(winner));
      step_features.push_back(static_cast<double>(added));
      step_nll.push_back(nll);
      best = std::move(candidates[winner]);
    }

    report = std::move(best->fit.report);
    FeatureSelection selection;
    selection.selected = best->features;
    selection.importances = importances;
    report.feature_selection = std::move(selection);
    const auto steps = static_cast<Index>(step_nll.size());
    CvTable table;
    table.parameter_names = {"feature"};
    table.candidates = Eigen::Map<const Vector>(step_features.data(), steps);
    table.mean_loss = Eigen::Map<const Vector>(step_nll.data(), steps);
    table.standard_error = Vector::Zero(steps);
    table.loss = "kl";
    table.best = steps - 1;
    report.auxiliary_cross_validation["forward_selection"] = std::move(table);
    report.statistics["n_selected_features"] = static_cast<double>(best->features.size());
    return model_on_all_features(best->fit.model, best->features, x_scaling);
  });
}

}  // namespace cdens

#include "cdens/density/gskd.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/density/parzen.hpp"
#include "core/fit_skeleton.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "density/density_scaling.hpp"
#include "density/fixed_kernels.hpp"
#include "density/gskd_construction.hpp"
#include "density/gskd_holdout.hpp"
#include "density/mnqp.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {

std::string to_string(GskdStopping stopping) {
  return stopping == GskdStopping::holdout ? "holdout" : "paper";
}

std::string to_string(GskdStageRule rule) { return rule == GskdStageRule::minimum ? "min" : "1se"; }

RwbsOptions gskd_paper_rwbs(Index dimension) {
  RwbsOptions options;
  options.population = dimension == 1 ? 10 : dimension == 2 ? 20 : 40;
  options.generations = 10;
  options.iterations = dimension <= 2 ? 200 : 400;
  return options;
}

DensityFit fit_gskd(const MatrixView& x, const GskdOptions& options, const FitContext& context) {
  return timed_fit<GaussianMixture>("gskd", [&](FitReport& report) {
    gskd_option_table().validate(options);
    Standardizer scaling = density_scaling(x, options.standardize, context);
    const Matrix z = scaling.transform(x);
    const Index m = z.rows();
    const Index n = z.cols();
    if (n < 2) throw DataError("GSKD needs at least 2 samples");

    const Vector& weights = context.sample_weights;
    PrefixedProgress target_progress(context.progress, "Parzen target width, ");
    const double target_width =
        parzen_target_width(x, options.target_bandwidth, options.standardize, context.threads,
                            target_progress, weights);
    RwbsOptions rwbs = gskd_paper_rwbs(m);
    if (options.population > 0) rwbs.population = options.population;
    if (options.generations > 0) rwbs.generations = options.generations;
    if (options.iterations > 0) rwbs.iterations = options.iterations;
    rwbs.seed = options.seed;

    const int threads = resolve_threads(context.threads);
    double variance_upper = options.variance_upper;
    Index stage_limit = std::min(options.max_kernels, n);
    if (options.stopping == GskdStopping::holdout) {
      if (n < 2 * options.folds) {
        throw DataError("x has " + std::to_string(n) +
                        " samples: GSKD's hold-out stopping needs at "
                        "least 2 per fold, " +
                        std::to_string(2 * options.folds) + " for " +
                        std::to_string(options.folds) +
                        " folds (give more samples, fewer folds, or stopping = paper)");
      }
      // Departure at large N (GskdOptions::holdout_subsample): the fold constructions run on a
      // random subsample, with the target width and box of the whole sample; the final
      // construction below uses all n. Up to the limit the hold-out is the one on every sample.
      const std::vector<Index> subsample =
          gskd_holdout_subsample(n, options.holdout_subsample, options.seed);
      GskdHoldoutChoice choice =
          subsample.empty()
              ? choose_gskd_stages(z, weights, target_width, options, rwbs, threads,
                                   context.progress)
              : choose_gskd_stages(gather_samples(z, subsample),
                                   weights.size() > 0 ? Vector(weights(subsample)) : Vector(),
                                   target_width, options, rwbs, threads, context.progress);
      report.statistics["holdout_samples"] =
          static_cast<double>(subsample.empty() ? n : static_cast<Index>(subsample.size()));
      variance_upper = choice.variance_upper;
      stage_limit = std::min(stage_limit, choice.stages);
      report.hyperparameters["stages"] = static_cast<double>(choice.stages);
      report.statistics["holdout_cost_evaluations"] = static_cast<double>(choice.evaluations);
      report.cross_validation = std::move(choice.table);
    }
    GskdConstruction construction(
        z, parzen_at_samples(z, target_width, threads, weights),
        gskd_box(z, target_width, options.variance_lower, variance_upper, weights), rwbs,
        options.regularization, threads, weights);
    // A stage may add no kernel (eq. 38), so the count is an upper bound only.
    context.progress.begin(
        "kernel construction, stages (at most " + std::to_string(stage_limit) + ")", 0);
    while (static_cast<Index>(construction.kernels().size()) < stage_limit &&
           construction.add_stage().added) {
      context.progress.advance();
    }
    context.progress.end();
    const Index k_count = static_cast<Index>(construction.kernels().size());
    const MnqpResult mnqp =
        gskd_weights(z, construction.target(), construction.kernels(), options.mnqp, weights);
    GaussianMixture fitted = gskd_mixture(std::move(scaling), construction.kernels(), mnqp);

    report.hyperparameters["target_bandwidth"] = target_width;
    report.hyperparameters["variance_upper"] = variance_upper;
    report.statistics["n_train"] = static_cast<double>(n);
    report.statistics["dimension"] = static_cast<double>(m);
    report.statistics["n_selected"] = static_cast<double>(k_count);
    report.statistics["n_kernels"] = static_cast<double>(fitted.n_components());
    report.statistics["loo_mse"] = construction.loo_mse();
    report.statistics["cost_evaluations"] = static_cast<double>(construction.evaluations());
    report.statistics["population"] = rwbs.population;
    report.statistics["generations"] = rwbs.generations;
    report.statistics["iterations"] = rwbs.iterations;
    report.statistics["mnqp_iterations"] = mnqp.iterations;
    if (!mnqp.converged) {
      report.warnings.push_back("MNQP stopped at max_iterations before reaching its tolerance");
    }
    if (options.stopping == GskdStopping::paper && k_count == std::min(options.max_kernels, n)) {
      report.warnings.push_back("GSKD stopped at max_kernels before the LOO criterion stopped it");
    }
    return fitted;
  });
}

}  // namespace cdens

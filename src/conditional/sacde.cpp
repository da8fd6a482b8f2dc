#include "cdens/conditional/sacde.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

#include "cdens/conditional/lscde.hpp"
#include "conditional/kernel_cde_engine.hpp"
#include "conditional/sacde_gate.hpp"
#include "conditional/sacde_system.hpp"
#include "core/fit_skeleton.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {

std::string to_string(SaCdeLambdaRule rule) {
  return rule == SaCdeLambdaRule::minimum ? "min" : "1se";
}

namespace {

/// This rank's standardised pairs and the plan's candidate centres, from every rank's pairs.
struct Prepared {
  StandardizedSamples pairs;
  StandardizedSamples candidates;  ///< ShardedSamplingPlan::candidate_order
};

/// The basis on the candidate centres at `positions` with width σ.
SaCdeBasis basis_on(const StandardizedSamples& candidates, const std::vector<Index>& positions,
                    double sigma) {
  return {gather_samples(candidates.z, positions), gather_samples(candidates.t, positions), sigma};
}

/// The (σ, λ) grid by K-fold cross-validation (§2.5): per (σ, fold) one system on the training
/// part, built on that part's own centres (as LSCDE does: no held-out pair is a centre of the
/// model that scores it), its whole λ path with warm starts, and the held-out NLL of every λ.
/// Each rank holds its own pairs: the systems sum Ĥ and ĥ over the ranks, and the held-out
/// losses are summed too.
CvTable cross_validate(const Prepared& data, const ShardedSamplingPlan& draws,
                       const SacdeOptions& options, int threads, const FitContext& context) {
  const int fold_count = draws.fold_count();
  const auto sigma_count = static_cast<Index>(options.sigma.size());
  const auto lambda_count = static_cast<Index>(options.regularization.size());
  std::vector<StandardizedSamples> training;
  std::vector<StandardizedSamples> held_out;
  for (int k = 0; k < fold_count; ++k) {
    std::vector<Index> train_rows;
    std::vector<Index> test_rows;
    for (std::size_t i = 0; i < draws.local_folds.size(); ++i) {
      (draws.local_folds[i] == k ? test_rows : train_rows).push_back(static_cast<Index>(i));
    }
    training.push_back(gather_pairs(data.pairs, train_rows));
    held_out.push_back(gather_pairs(data.pairs, test_rows));
  }
  Matrix fold_loss(sigma_count * lambda_count, fold_count);
  context.progress.begin("cross-validation", sigma_count * fold_count);
  // The (σ, fold) tasks go round-robin to one worker per thread, each with one system that it
  // reassigns to its next task (SaCdeSystem::assign: the memory is reused). A task's result
  // does not depend on the worker, so the table does not depend on `threads`. On many ranks a
  // system's sums are collective calls, which every rank makes in the same order from its main
  // thread: one worker.
  const Index tasks = sigma_count * fold_count;
  const Index workers = context.communicator.size() > 1 ? 1 : std::min<Index>(threads, tasks);
  parallel_for(threads, workers, [&](Index worker) {
    std::optional<SaCdeSystem> system;
    for (Index task = worker; task < tasks; task += workers) {
      const Index s = task / fold_count;
      const auto k = static_cast<std::size_t>(task % fold_count);
      const SaCdeBasis basis = basis_on(data.candidates, draws.fold_centers[k],
                                        options.sigma[static_cast<std::size_t>(s)]);
      if (system) {
        system->assign(training[k].z, training[k].t, basis);
      } else {
        system.emplace(training[k].z, training[k].t, basis, context.communicator);
      }
      const Matrix alphas = sacde_path(*system, options.regularization, options.solver);
      fold_loss.block(s * lambda_count, static_cast<Index>(k), lambda_count, 1) =
          sacde_held_out_nll_sums(held_out[k].z, held_out[k].t, basis, alphas);
      context.progress.advance();
    }
  });
  context.progress.end();
  context.communicator.allreduce_sum(fold_loss.data(), static_cast<std::size_t>(fold_loss.size()));
  for (int k = 0; k < fold_count; ++k) {
    fold_loss.col(k) /= static_cast<double>(draws.fold_sizes[static_cast<std::size_t>(k)]);
  }
  return make_cv_table({"sigma", "regularization"},
                       product_grid(options.sigma, options.regularization), fold_loss, "kl");
}

/// The regularisation path of the fitted σ, the chosen λ and the kept features.
FeatureSelection feature_selection(const Matrix& alphas, const std::vector<double>& lambdas,
                                   Index chosen, Index n_features) {
  const Matrix norms = sacde_group_norms(alphas, n_features);
  std::vector<Index> order(lambdas.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<Index>(j);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
    return lambdas[static_cast<std::size_t>(a)] > lambdas[static_cast<std::size_t>(b)];
  });
  RegularizationPath path;
  path.lambdas.resize(static_cast<Index>(order.size()));
  path.group_norms.resize(n_features, static_cast<Index>(order.size()));
  for (std::size_t j = 0; j < order.size(); ++j) {
    path.lambdas(static_cast<Index>(j)) = lambdas[static_cast<std::size_t>(order[j])];
    path.group_norms.col(static_cast<Index>(j)) = norms.col(order[j]);
  }
  path.chosen_lambda = lambdas[static_cast<std::size_t>(chosen)];
  FeatureSelection selection;
  selection.importances = norms.col(chosen);
  for (Index d = 0; d < n_features; ++d) {
    if (selection.importances(d) > 0.0) selection.selected.push_back(d);
  }
  selection.path = std::move(path);
  return selection;
}

}  // namespace

ConditionalFit fit_sacde(const MatrixView& x, const MatrixView& y, const SacdeOptions& options,
                         const FitContext& context) {
  return timed_fit<ConditionalMixture>("sacde", [&](FitReport& report) {
    // Each rank passes its own pairs; the standardisation, the centres and the folds are those
    // of every rank's, as in fit_lscde.
    const Communicator& communicator = context.communicator;
    int threads = 0;
    agree_on_errors(communicator, [&] {
      sacde_option_table().validate(options);
      require_training_shard(x, y, communicator);
      threads = resolve_threads(context.threads);
    });
    // Centres and folds are drawn as LSCDE draws them (§3: B = min(100, N) random pairs).
    const bool cross_validates = options.sigma.size() * options.regularization.size() > 1;
    ShardedPairs sharded =
        prepare_sharded_pairs(x, y, options.n_centers, cross_validates ? options.folds : 0,
                              options.seed, Vector(), context);
    const Standardizer& x_scaling = sharded.x_scaling;
    const Standardizer& y_scaling = sharded.y_scaling;
    const ShardedSamplingPlan& draws = sharded.plan;
    const Index n = sharded.n;
    const Prepared data{{std::move(sharded.z), std::move(sharded.t)},
                        {std::move(sharded.candidates_x), std::move(sharded.candidates_y)}};

    double sigma = options.sigma.front();
    double lambda = options.regularization.front();
    if (draws.fold_count() > 0) {
      const CvTable& table = keep_cross_validation(
          report, cross_validate(data, draws, options, threads, context),
          {options.sigma, options.regularization}, {y_scaling.log_jacobian()});
      sigma = table.candidates(table.best, 0);
      lambda = table.candidates(table.best, 1);
      report.statistics["regularization_cv_minimum"] = lambda;
      if (options.lambda_rule == SaCdeLambdaRule::one_standard_error) {
        // At the σ of the minimum, the largest λ within one standard error of it.
        lambda = table.candidates(one_standard_error_row(table, 1, true), 1);
      }
      report.statistics["folds"] = draws.fold_count();
    }

    // The whole path at the chosen σ on every training pair (Figure 4); the model is its λ.
    std::vector<Index> centers(static_cast<std::size_t>(draws.center_count));
    std::iota(centers.begin(), centers.end(), Index{0});
    const SaCdeBasis basis = basis_on(data.candidates, centers, sigma);
    Matrix alphas;
    // One task: the BLAS inside runs single-threaded, so α̂ does not depend on the thread count.
    parallel_for(1, 1, [&](Index) {
      SaCdeSystem system(data.pairs.z, data.pairs.t, basis, communicator);
      alphas = sacde_path(system, options.regularization, options.solver);
      report.statistics["lambda_max"] = system.lambda_max();
    });
    const auto chosen = static_cast<Index>(
        std::find(options.regularization.begin(), options.regularization.end(), lambda) -
        options.regularization.begin());
    const Vector alpha = alphas.col(chosen);
    report.feature_selection = feature_selection(alphas, options.regularization, chosen, x.rows());
    if (report.feature_selection->selected.empty()) {
      report.warnings.push_back(
          "every feature was switched off: the model is the kernel density estimate of y, "
          "whatever x");
    }

    report.hyperparameters = {{"sigma", sigma}, {"regularization", lambda}};
    report.statistics["n_train"] = static_cast<double>(n);
    report.statistics["n_basis"] = static_cast<double>(basis.size());
    report.statistics["n_selected_features"] =
        static_cast<double>(report.feature_selection->selected.size());
    return make_sacde_mixture(x_scaling, y_scaling, basis, alpha);
  });
}

}  // namespace cdens

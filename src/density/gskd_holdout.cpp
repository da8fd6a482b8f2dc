#include "density/gskd_holdout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cdens/core/rng.hpp"
#include "cdens/evaluation/scores.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "density/fixed_kernels.hpp"
#include "density/gskd_construction.hpp"
#include "density/mnqp.hpp"
#include "parallel/parallel.hpp"

namespace cdens {

std::vector<Index> gskd_holdout_subsample(Index n, Index limit, std::uint64_t seed) {
  if (limit <= 0 || n <= limit) return {};
  Rng rng(seed, random_stream::kHoldOutSubsample);
  std::vector<Index> chosen = choose_centers(n, limit, rng);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

GskdHoldoutChoice choose_gskd_stages(const MatrixView& z, const Vector& weights,
                                     double target_width, const GskdOptions& options,
                                     const RwbsOptions& rwbs, int threads, Progress& progress) {
  Rng rng(options.seed, random_stream::kOuterFolds);
  const KFold folds(z.cols(), options.folds, rng);
  const std::vector<double>& bounds = options.variance_upper_grid;
  const auto bound_count = static_cast<Index>(bounds.size());
  const int fold_count = folds.n_folds();
  const auto of_rows = [&](const std::vector<Index>& rows) {
    return weights.size() > 0 ? Vector(weights(rows)) : Vector();
  };
  // The other folds, their weights and their Parzen target, shared by every bound.
  std::vector<Matrix> training(static_cast<std::size_t>(fold_count));
  std::vector<Vector> training_weights(training.size());
  std::vector<Vector> targets(training.size());
  parallel_for(threads, fold_count, [&](Index k) {
    const auto fold = static_cast<std::size_t>(k);
    const std::vector<Index> rows = folds.train(static_cast<int>(k));
    training[fold] = gather_samples(z, rows);
    training_weights[fold] = of_rows(rows);
    targets[fold] = parzen_at_samples(training[fold], target_width, 1, training_weights[fold]);
  });
  // traces[c · K + k]: the held-out error of fold k after stages 1, 2, … with bound c. One task
  // per (bound, fold), each construction on one thread, so the traces do not depend on
  // `threads`.
  std::vector<std::vector<double>> traces(static_cast<std::size_t>(bound_count * fold_count));
  std::vector<Index> evaluations(traces.size(), 0);
  progress.begin("hold-out of variance_upper and stages, constructions", bound_count * fold_count);
  parallel_for(threads, bound_count * fold_count, [&](Index task) {
    const Index c = task / fold_count;
    const auto k = static_cast<int>(task % fold_count);
    const Matrix& train = training[static_cast<std::size_t>(k)];
    const Vector& train_weights = training_weights[static_cast<std::size_t>(k)];
    const Matrix held_out = gather_samples(z, folds.test(k));
    const Vector held_out_weights = of_rows(folds.test(k));
    GskdConstruction construction(train, targets[static_cast<std::size_t>(k)],
                                  gskd_box(train, target_width, options.variance_lower,
                                           bounds[static_cast<std::size_t>(c)], train_weights),
                                  rwbs, options.regularization, 1, train_weights);
    std::vector<double>& trace = traces[static_cast<std::size_t>(task)];
    double best = std::numeric_limits<double>::infinity();
    int since_best = 0;
    while (static_cast<Index>(trace.size()) < std::min(options.max_kernels, train.cols()) &&
           since_best < options.patience && construction.add_stage().added) {
      const std::vector<Vector>& kernels = construction.kernels();
      const MnqpResult mixing =
          gskd_weights(train, construction.target(), kernels, options.mnqp, train_weights);
      trace.push_back(held_out_ise(gskd_mixture(Standardizer::identity(z.rows()), kernels, mixing),
                                   held_out, held_out_weights));
      if (trace.back() < best) {
        best = trace.back();
        since_best = 0;
      } else {
        ++since_best;
      }
    }
    evaluations[static_cast<std::size_t>(task)] = construction.evaluations();
    progress.advance();
  });
  progress.end();
  Index longest = 1;
  for (const auto& trace : traces) longest = std::max(longest, static_cast<Index>(trace.size()));
  Matrix candidates(bound_count * longest, 2);
  Matrix fold_loss(bound_count * longest, fold_count);
  for (Index c = 0; c < bound_count; ++c) {
    for (Index n = 0; n < longest; ++n) {
      const Index row = c * longest + n;
      candidates.row(row) << bounds[static_cast<std::size_t>(c)], static_cast<double>(n + 1);
      for (int k = 0; k < fold_count; ++k) {
        const std::vector<double>& trace = traces[static_cast<std::size_t>(c * fold_count + k)];
        const auto at = std::min<std::size_t>(static_cast<std::size_t>(n), trace.size() - 1);
        fold_loss(row, k) = trace[at];
      }
    }
  }
  GskdHoldoutChoice choice;
  for (const Index count : evaluations) choice.evaluations += count;
  choice.table = make_cv_table({"variance_upper", "stages"}, candidates, fold_loss, "ise");
  // The minimum, or at its bound the fewest stages within one standard error of it.
  const Index row = options.stage_rule == GskdStageRule::minimum
                        ? choice.table.best
                        : one_standard_error_row(choice.table, 1, false);
  if (row >= 0) {
    choice.variance_upper = choice.table.candidates(row, 0);
    choice.stages = static_cast<Index>(choice.table.candidates(row, 1));
  }
  return choice;
}

}  // namespace cdens

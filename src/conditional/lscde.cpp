#include "cdens/conditional/lscde.hpp"

#include <algorithm>
#include <cmath>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/lscde_system.hpp"
#include "core/fit_skeleton.hpp"
#include "core/sample_weights.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "methods/option_tables.hpp"
#include "model/tied_outputs.hpp"
#include "parallel/parallel.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {
namespace {

/// This rank's standardised training data and the basis centres drawn from every rank's.
struct Prepared {
  ShardedPairs pairs;
  Matrix z_unlabeled;  ///< standardised unlabelled x, d_x × n'
  Vector weights;      ///< the pairs' sample weights (empty: each weighs 1)
};

/// The sums of `sums` over the basis functions at `positions` only (rows and columns of the
/// gram, entries of the joint sums).
LscdeSums restricted_sums(const LscdeSums& sums, const std::vector<Index>& positions) {
  return {sums.input_gram(positions, positions), sums.joint(positions), sums.input_weight,
          sums.pair_weight};
}

/// The whole σ × λ grid by K-fold cross-validation (§2.5): for each σ, one pass over the rows
/// gathers per-fold sums over the union of every fold's centres; for each (σ, fold) the sums of
/// the fold's own centres give one eigendecomposition and α̂ for every λ; a second pass scores
/// every λ on the held-out rows. Each rank passes over its own rows; the per-fold sums and the
/// held-out losses are summed over the ranks.
CvTable cross_validate(const Prepared& data, const ShardedSamplingPlan& draws,
                       const LscdeOptions& options, int threads, const FitContext& context) {
  const int fold_count = draws.fold_count();
  // This rank's rows grouped by fold, in row order within a fold.
  std::vector<Index> order;
  std::vector<Index> fold_begin = {0};
  for (int k = 0; k < fold_count; ++k) {
    for (std::size_t i = 0; i < draws.local_folds.size(); ++i) {
      if (draws.local_folds[i] == k) order.push_back(static_cast<Index>(i));
    }
    fold_begin.push_back(static_cast<Index>(order.size()));
  }
  // The pairs of a labelled block, kRowChunk at a time in `order` (a copy of all rows regrouped
  // by fold would add 8 (d_x + d_y) bytes per row): visit(z, t, weights) for each chunk, the
  // weights empty when the pairs weigh 1.
  const bool weighted = data.weights.size() > 0;
  const auto for_each_chunk_of = [&](const SampleBlock& block, const auto& visit) {
    for_each_row_chunk(block.size, [&](Index begin, Index size) {
      const auto first = order.begin() + block.begin + begin;
      const std::vector<Index> rows(first, first + size);
      visit(gather_samples(data.pairs.z, rows), gather_samples(data.pairs.t, rows),
            weighted ? Vector(data.weights(rows)) : Vector());
    });
  };

  // Every fold's centres lie in a prefix of the candidates; the sums are gathered over that
  // prefix once, and fold k keeps the rows and columns of its own centres.
  Index union_size = 0;
  for (const auto& positions : draws.fold_centers) {
    union_size = std::max(union_size, positions.back() + 1);
  }
  const Matrix union_x = data.pairs.candidates_x.leftCols(union_size);
  const Matrix union_y = data.pairs.candidates_y.leftCols(union_size);

  std::vector<SampleBlock> blocks;
  for (int k = 0; k < fold_count; ++k)
    append_sample_blocks(k, fold_begin[k], fold_begin[k + 1], blocks);
  const auto labeled_blocks = static_cast<Index>(blocks.size());
  append_sample_blocks(-1, 0, data.z_unlabeled.cols(), blocks);
  const auto block_count = static_cast<Index>(blocks.size());

  const auto sigma_count = static_cast<Index>(options.sigma.size());
  const auto lambda_count = static_cast<Index>(options.regularization.size());
  std::vector<LscdeBasis> union_bases;
  std::vector<LscdeBasis> fold_bases;  // (σ, fold) at s · K + k
  for (double sigma : options.sigma) {
    union_bases.push_back({union_x, union_y, sigma});
    for (const auto& positions : draws.fold_centers) {
      fold_bases.push_back(
          {gather_samples(union_x, positions), gather_samples(union_y, positions), sigma});
    }
  }

  context.progress.begin("cross-validation",
                         sigma_count * (block_count + fold_count + labeled_blocks));

  // Pass 1: per-block sums, added per (σ, fold) in block order; unlabelled inputs belong to
  // every training set. The σ go in batches just large enough to keep the threads busy, so that
  // only one batch's b × b block sums are held at a time.
  std::vector<LscdeSums> fold_sums(static_cast<std::size_t>(sigma_count * (fold_count + 1)),
                                   LscdeSums::zero(union_size));
  // A rank may hold no rows, and so no blocks.
  const Index sigmas_per_batch = (4 * threads + block_count - 1) / std::max<Index>(block_count, 1);
  for (Index first = 0; first < sigma_count; first += sigmas_per_batch) {
    const Index batch = std::min(sigmas_per_batch, sigma_count - first);
    std::vector<LscdeSums> block_sums(static_cast<std::size_t>(batch * block_count));
    parallel_for(threads, batch * block_count, [&](Index task) {
      const auto& basis = union_bases[static_cast<std::size_t>(first + task / block_count)];
      const SampleBlock& block = blocks[static_cast<std::size_t>(task % block_count)];
      LscdeSums& sums = block_sums[static_cast<std::size_t>(task)];
      if (block.fold < 0) {
        sums = lscde_input_sums(data.z_unlabeled.middleCols(block.begin, block.size), basis);
      } else {
        sums = LscdeSums::zero(basis.size());
        for_each_chunk_of(block, [&](const Matrix& z, const Matrix& t, const Vector& weights) {
          sums += lscde_pair_sums(z, t, basis, weights);
        });
      }
      context.progress.advance();
    });
    for (Index task = 0; task < batch * block_count; ++task) {
      const int fold = blocks[static_cast<std::size_t>(task % block_count)].fold;
      const Index s = first + task / block_count;
      fold_sums[static_cast<std::size_t>(s * (fold_count + 1) + (fold >= 0 ? fold : fold_count))] +=
          block_sums[static_cast<std::size_t>(task)];
    }
  }
  for (auto& sums : fold_sums) allreduce_sums(sums, context.communicator);

  // Per (σ, fold): the training system on the fold's centres, its eigendecomposition and α̂ for
  // every λ.
  std::vector<Matrix> overlaps(fold_bases.size());
  std::vector<Matrix> alphas(fold_bases.size());
  parallel_for(threads, sigma_count * fold_count, [&](Index task) {
    const Index s = task / fold_count;
    const int k = static_cast<int>(task % fold_count);
    LscdeSums training = fold_sums[static_cast<std::size_t>(s * (fold_count + 1) + fold_count)];
    for (int other = 0; other < fold_count; ++other) {
      if (other != k) training += fold_sums[static_cast<std::size_t>(s * (fold_count + 1) + other)];
    }
    const LscdeBasis& basis = fold_bases[static_cast<std::size_t>(task)];
    overlaps[static_cast<std::size_t>(task)] = output_overlap(basis);
    const LscdeSystem system =
        lscde_system(restricted_sums(training, draws.fold_centers[static_cast<std::size_t>(k)]),
                     overlaps[static_cast<std::size_t>(task)], basis);
    alphas[static_cast<std::size_t>(task)] =
        LscdeLambdaPath(system).coefficients(options.regularization);
    context.progress.advance();
  });

  // Pass 2: held-out loss of every λ, block by block.
  std::vector<Vector> block_losses(static_cast<std::size_t>(sigma_count * labeled_blocks));
  parallel_for(threads, sigma_count * labeled_blocks, [&](Index task) {
    const Index s = task / labeled_blocks;
    const SampleBlock& block = blocks[static_cast<std::size_t>(task % labeled_blocks)];
    const auto fold_task = static_cast<std::size_t>(s * fold_count + block.fold);
    Vector& losses = block_losses[static_cast<std::size_t>(task)];
    losses = Vector::Zero(lambda_count);
    for_each_chunk_of(block, [&](const Matrix& z, const Matrix& t, const Vector& weights) {
      losses += lscde_held_out_loss_sums(z, t, fold_bases[fold_task], overlaps[fold_task],
                                         alphas[fold_task], options.cv_loss, weights);
    });
    context.progress.advance();
  });
  context.progress.end();

  // Mean over folds of each fold's mean held-out loss (§2.5).
  Matrix fold_loss = Matrix::Zero(sigma_count * lambda_count, fold_count);
  for (Index s = 0; s < sigma_count; ++s) {
    for (Index b = 0; b < labeled_blocks; ++b) {
      const int k = blocks[static_cast<std::size_t>(b)].fold;
      fold_loss.block(s * lambda_count, k, lambda_count, 1) +=
          block_losses[static_cast<std::size_t>(s * labeled_blocks + b)];
    }
  }
  context.communicator.allreduce_sum(fold_loss.data(), static_cast<std::size_t>(fold_loss.size()));
  // Each fold's mean loss: over its pairs (every rank's), or its pairs' weights (one process).
  std::vector<double> fold_weights(draws.fold_sizes.begin(), draws.fold_sizes.end());
  if (weighted) {
    std::fill(fold_weights.begin(), fold_weights.end(), 0.0);
    for (std::size_t i = 0; i < draws.local_folds.size(); ++i) {
      fold_weights[static_cast<std::size_t>(draws.local_folds[i])] +=
          data.weights(static_cast<Index>(i));
    }
  }
  for (int k = 0; k < fold_count; ++k)
    fold_loss.col(k) /= fold_weights[static_cast<std::size_t>(k)];

  return make_cv_table({"sigma", "regularization"},
                       product_grid(options.sigma, options.regularization), fold_loss,
                       to_string(options.cv_loss));
}

/// The losses above are in standardised units; report them in the user's units.
void validate(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
              const LscdeOptions& options, const FitContext& context) {
  const Communicator& communicator = context.communicator;
  require_training_shard(x, y, communicator);
  if (context.weighted()) {
    validate_sample_weights(context.sample_weights, x.cols(), "LSCDE sample weights");
    // Unlabelled inputs have no weight on the pairs' scale, and the weighted standardisation is
    // that of one process's rows.
    if (unlabeled_x.cols() > 0) {
      throw InvalidArgument("LSCDE takes sample weights without unlabelled inputs only");
    }
    if (communicator.size() > 1) {
      throw InvalidArgument("LSCDE takes sample weights on one process only");
    }
  }
  if (unlabeled_x.cols() > 0) {
    require_dimension(unlabeled_x, x.rows(), "unlabelled x");
    require_finite(unlabeled_x, "unlabelled x");
  }
  lscde_option_table().validate(options);
}

}  // namespace

std::vector<double> lscde_paper_grid() { return {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10}; }

ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const LscdeOptions& options,
                         const FitContext& context) {
  return fit_lscde(x, y, Matrix(x.rows(), 0), options, context);
}

ConditionalFit fit_lscde(const MatrixView& x, const MatrixView& y, const MatrixView& unlabeled_x,
                         const LscdeOptions& options, const FitContext& context) {
  return timed_fit<ConditionalMixture>("lscde", [&](FitReport& report) {
    // Each rank passes its own rows; what decides the model — the standardisation, the centres,
    // the folds — is computed over every rank's, so any number of ranks fits the same model.
    const Communicator& communicator = context.communicator;
    int threads = 0;
    agree_on_errors(communicator, [&] {
      validate(x, y, unlabeled_x, options, context);
      threads = resolve_threads(context.threads);
    });
    // §2.6: b = min(100, n) centres chosen at random from the training pairs; folds when there
    // is more than one (σ, λ) to choose from.
    const bool cross_validates = options.sigma.size() * options.regularization.size() > 1;
    Prepared data{
        prepare_sharded_pairs(x, y, options.n_centers, cross_validates ? options.folds : 0,
                              options.seed, context.sample_weights, context),
        {},
        context.sample_weights};
    const Standardizer& x_scaling = data.pairs.x_scaling;
    const Standardizer& y_scaling = data.pairs.y_scaling;
    const ShardedSamplingPlan& draws = data.pairs.plan;
    data.z_unlabeled =
        unlabeled_x.cols() > 0 ? x_scaling.transform(unlabeled_x) : Matrix(x.rows(), 0);

    double sigma = options.sigma.front();
    double lambda = options.regularization.front();
    if (draws.fold_count() > 0) {
      const CvTable& table =
          keep_cross_validation(report, cross_validate(data, draws, options, threads, context),
                                {options.sigma, options.regularization},
                                {y_scaling.log_jacobian(), options.cv_loss == CvLoss::sq});
      sigma = table.candidates(table.best, 0);
      lambda = table.candidates(table.best, 1);
      // The ties of the outputs need all of them at once (a sort); on many ranks the warning is
      // not given (docs/methods/lscde.md).
      if (communicator.size() == 1) {
        if (auto spikes = spike_warning(data.pairs.t, sigma, options.sigma,
                                        context.pair_names(x.rows(), y.rows()).second)) {
          report.warnings.push_back(std::move(*spikes));
        }
      }
      report.statistics["folds"] = draws.fold_count();
    }

    const LscdeBasis basis{data.pairs.candidates_x.leftCols(draws.center_count),
                           data.pairs.candidates_y.leftCols(draws.center_count), sigma};
    LscdeSums sums =
        lscde_sums(data.pairs.z, data.pairs.t, data.z_unlabeled, basis, threads, data.weights);
    allreduce_sums(sums, communicator);
    Vector alpha;
    // One task: the BLAS inside runs single-threaded, as in cross-validation, so α̂ is the same
    // whatever the thread count.
    parallel_for(1, 1, [&](Index) {
      const LscdeSystem system = lscde_system(sums, output_overlap(basis), basis);
      alpha = LscdeLambdaPath(system).coefficients({lambda}).col(0);
    });
    const auto active = (alpha.array() > 0.0).count();
    if (active == 0) {
      report.warnings.push_back(
          "every coefficient was rounded to zero: the model is the plain mixture of the basis "
          "outputs");
    }

    report.hyperparameters = {{"sigma", sigma}, {"regularization", lambda}};
    report.statistics["n_train"] = static_cast<double>(data.pairs.n);
    report.statistics["n_unlabeled"] =
        static_cast<double>(communicator.sum_counts(data.z_unlabeled.cols()));
    report.statistics["n_basis"] = static_cast<double>(basis.size());
    report.statistics["n_active_basis"] = static_cast<double>(active);
    return make_lscde_mixture(x_scaling, y_scaling, basis, alpha);
  });
}

}  // namespace cdens

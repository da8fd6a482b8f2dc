#include "cdens/density/gmm.hpp"

#include <cmath>
#include <string>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "core/fit_skeleton.hpp"
#include "core/random_streams.hpp"
#include "core/validate.hpp"
#include "density/density_scaling.hpp"
#include "density/gmm_starts.hpp"
#include "density/gmm_steps.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// InvalidArgument unless there are at least as many samples as components (the table's rules
/// are checked before).
void require_samples_for_components(const GmmOptions& options, Index n) {
  if (options.n_components > n) {
    throw InvalidArgument("GMM n_components (" + std::to_string(options.n_components) +
                          ") exceeds the number of samples (" + std::to_string(n) + ")");
  }
}

/// EM (eqs. 5–8) on `samples` from the given start, every iteration one pass over the samples
/// (the E-step of the current parameters and the sums of the M-step after it), each advancing
/// `progress` by one.
EmRun em_from(const EmSamples& samples, Vector weights, Matrix centers, Matrix variances,
              const GmmOptions& options, Progress& progress) {
  EmRun run;
  EmSums sums = expectation(samples, weights, centers, variances);
  double current = sums.log_likelihood;
  run.log_likelihood.push_back(current);
  for (int iteration = 0; iteration < options.max_iter; ++iteration) {
    maximization(sums, samples.total_weight(), options.variance_floor, weights, centers, variances);
    sums = expectation(samples, weights, centers, variances);
    const double next = sums.log_likelihood;
    run.log_likelihood.push_back(next);
    ++run.iterations;
    progress.advance();
    // The likelihood is summed over the ranks, the same bits on every rank: all stop together.
    const bool small_step = next - current < options.tol;
    current = next;
    if (small_step) {
      run.converged = true;
      break;
    }
  }
  run.weights = std::move(weights);
  run.centers = std::move(centers);
  run.variances = std::move(variances);
  return run;
}

}  // namespace

EmRun run_em(const MatrixView& z, Vector weights, Matrix centers, Matrix variances,
             const GmmOptions& options, const FitContext& context) {
  const Communicator& communicator = context.communicator;
  int threads = 0;
  agree_on_errors(communicator, [&] {
    const Index k_count = centers.cols();
    if (weights.size() != k_count || centers.rows() != z.rows() || variances.rows() != z.rows() ||
        variances.cols() != k_count || k_count == 0) {
      throw InvalidArgument("EM: weights, centres and variances disagree in shape");
    }
    require_positive(options.variance_floor, "GMM variance_floor");
    if (!(variances.array() > 0.0).all() || (weights.array() < 0.0).any()) {
      throw InvalidArgument("EM: variances must be positive and weights non-negative");
    }
    threads = resolve_threads(context.threads);
  });
  const Matrix by_dimension = z.transpose();
  return em_from({z, by_dimension, communicator.sum_counts(z.cols()), communicator, threads},
                 std::move(weights), std::move(centers), std::move(variances), options,
                 silent_progress());
}

std::string to_string(GmmInitialization initialization) {
  return initialization == GmmInitialization::box ? "box" : "kmeans++";
}

GmmInitialization parse_gmm_initialization(const std::string& name) {
  for (const auto initialization : {GmmInitialization::kmeans_plus_plus, GmmInitialization::box}) {
    if (name == to_string(initialization)) return initialization;
  }
  throw InvalidArgument("the GMM initialisation must be kmeans++ or box, got '" + name + "'");
}

DensityFit fit_gmm(const MatrixView& x, const GmmOptions& options, const FitContext& context) {
  gmm_option_table().validate(options);
  return timed_fit<GaussianMixture>("gmm", [&](FitReport& report) {
    // Each rank passes its own rows; what decides the model — the standardisation, the starts,
    // every EM step's sums, the choice among the restarts — is global, so any number of ranks
    // fits the same model (docs/distributed.md).
    const Communicator& communicator = context.communicator;
    Standardizer scaling = sharded_density_scaling(x, options.standardize, context);
    const Index n = communicator.sum_counts(x.cols());
    require_samples_for_components(options, n);
    const Matrix z = scaling.transform(x);
    int threads = 0;
    agree_on_errors(communicator, [&] { threads = resolve_threads(context.threads); });

    const Matrix by_dimension = z.transpose();
    std::vector<EmRun> runs(static_cast<std::size_t>(options.n_init));
    // Restart r: its start, drawn from stream r, and EM from it, on `run_threads` threads.
    const auto run_restart = [&](Index r, int run_threads) {
      Rng rng(options.seed, random_stream::indexed(r));
      const EmSamples samples{z,           by_dimension,
                              n,           communicator,
                              run_threads, context.weighted() ? &context.sample_weights : nullptr};
      Vector weights;
      Matrix centers, variances;
      if (options.init == GmmInitialization::box) {
        box_start(z.rows(), options, rng, weights, centers, variances);
      } else {
        kmeans_plus_plus_start(samples, options, rng, weights, centers, variances);
      }
      runs[static_cast<std::size_t>(r)] = em_from(samples, std::move(weights), std::move(centers),
                                                  std::move(variances), options, context.progress);
    };
    // EM stops where the likelihood levels off, so the count of iterations is not known ahead:
    // the line tells how many were made and how fast.
    context.progress.begin(options.n_init > 1
                               ? "EM iterations of " + std::to_string(options.n_init) + " starts"
                               : std::string("EM iterations"),
                           0);
    if (communicator.size() == 1 && options.n_init >= threads) {
      // As many restarts as threads or more: the restarts in parallel, each on one thread.
      parallel_for(threads, options.n_init, [&](Index r) { run_restart(r, 1); });
    } else {
      // Fewer restarts than threads, or several ranks (every EM step sums over the ranks, a
      // collective call that every rank makes from this thread in the same order): the restarts
      // one after another, each on every thread over blocks of the samples. Either way a run
      // adds its block sums in block order, so the runs do not depend on the choice.
      for (Index r = 0; r < options.n_init; ++r) run_restart(r, threads);
    }
    context.progress.end();
    // The final likelihoods are the same on every rank, and so is the choice.
    std::size_t best = 0;
    for (std::size_t r = 1; r < runs.size(); ++r) {
      if (runs[r].log_likelihood.back() > runs[best].log_likelihood.back()) best = r;
    }
    EmRun& run = runs[best];
    if (!std::isfinite(run.log_likelihood.back())) {
      throw DataError("EM did not reach a finite likelihood from any start");
    }

    report.hyperparameters["n_components"] = static_cast<double>(options.n_components);
    report.hyperparameters["variance_floor"] = options.variance_floor;
    report.statistics["n_train"] = static_cast<double>(n);
    report.statistics["dimension"] = static_cast<double>(z.rows());
    // In the data's units, as every score of the model is (EM's is of the standardised data).
    report.statistics["mean_log_likelihood"] = run.log_likelihood.back() + scaling.log_jacobian();
    report.statistics["iterations"] = run.iterations;
    report.statistics["converged"] = run.converged ? 1.0 : 0.0;
    report.statistics["best_restart"] = static_cast<double>(best);
    report.parameter_choice =
        "none: n_components = " + std::to_string(options.n_components) +
        " is given, not selected (compare the held-out scores of fits with several); EM from " +
        (options.n_init > 1
             ? std::to_string(options.n_init) + " starts, the one of the largest likelihood kept"
             : std::string("one start"));
    if (!run.converged) {
      report.warnings.push_back("EM stopped at max_iter = " + std::to_string(options.max_iter) +
                                " iterations before reaching the tolerance tol");
    }
    const Index floored = (run.variances.array() <= options.variance_floor).count();
    if (floored > 0) {
      report.warnings.push_back(std::to_string(floored) +
                                " variances sit at the floor variance_floor");
    }
    GaussianMixture model(std::move(scaling), run.weights, run.centers,
                          run.variances.array().sqrt().matrix());
    return model;
  });
}

}  // namespace cdens

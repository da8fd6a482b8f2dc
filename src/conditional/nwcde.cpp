#include "cdens/conditional/nwcde.hpp"

#include <memory>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "conditional/kernel_cde_engine.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/fit_skeleton.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// Leave-one-out NLL of every σ (S × B): for centre b,
///   −log p̂_{−b}(v_b | u_b) = −log Σ_{c≠b} exp(−(‖u_b−u_c‖² + ‖v_b−v_c‖²)/2σ²)
///                            + log Σ_{c≠b} exp(−‖u_b−u_c‖²/2σ²) + d_y log(√(2π) σ),
/// both sums taken from the B × B squared distances (closed form, no refit).
Matrix leave_one_out_losses(const StandardizedSamples& centers, const std::vector<double>& sigmas,
                            int threads) {
  const Vector scales = kernel_scales(sigmas);
  Vector normalizers(scales.size());
  for (Index s = 0; s < scales.size(); ++s) {
    normalizers(s) = log_gaussian_normalizer(centers.t.rows(), sigmas[static_cast<std::size_t>(s)]);
  }
  return columns_by_blocks(scales.size(), centers.z.cols(), threads, [&](Index begin, Index size) {
    const StandardizedSamples queries{centers.z.middleCols(begin, size),
                                      centers.t.middleCols(begin, size)};
    const KernelLogSums sums = kernel_log_sums(queries, centers, scales, begin);
    return Matrix((sums.input - sums.joint).colwise() + normalizers);
  });
}

}  // namespace

ConditionalFit fit_nwcde(const MatrixView& x, const MatrixView& y, const NwcdeOptions& options,
                         const FitContext& context) {
  return timed_fit<ConditionalMixture>("nwcde", [&](FitReport& report) {
    nwcde_option_table().validate(options);
    const StandardizedPairs data = standardize_pairs(x, y, context);
    const int threads = resolve_threads(context.threads);
    // SA-CDE §3: B = min(100, N) centres chosen at random from the training samples.
    Rng rng(options.seed, random_stream::kSamplingPlan);
    const StandardizedSamples centers =
        gather_pairs(data.samples, choose_centers(x.cols(), options.n_centers, rng));
    const Index center_count = centers.z.cols();

    double sigma = options.sigma.front();
    if (options.sigma.size() > 1) {
      if (center_count < 2) {
        throw InvalidArgument("leave-one-out cross-validation of sigma needs at least 2 centres");
      }
      context.progress.begin("leave-one-out cross-validation", 1);
      const Matrix losses = leave_one_out_losses(centers, options.sigma, threads);
      context.progress.advance();
      context.progress.end();
      // Leave-one-out is K-fold cross-validation with B folds of one centre each.
      const CvTable& table = keep_cross_validation(
          report, make_cv_table({"sigma"}, grid_candidates(options.sigma), losses, "kl"),
          {options.sigma}, {data.y_scaling.log_jacobian()});
      sigma = table.candidates(table.best, 0);
      report.statistics["folds"] = static_cast<double>(center_count);
    }

    report.hyperparameters = {{"sigma", sigma}};
    report.statistics["n_centers"] = static_cast<double>(center_count);
    return kernel_cde_model(data, std::make_shared<const GaussianKernelGate>(centers.z, sigma),
                            centers.t, sigma, report);
  });
}

}  // namespace cdens

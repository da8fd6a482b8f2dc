#pragma once
// What the MPI tests share: the communicator of every process of the run, and files every rank
// reads.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "core/samples.hpp"
#include "support.hpp"

namespace cdens::testing_mpi {

/// The communicator of all ranks, set once by main().
const Communicator& world();
void set_world(const Communicator& communicator);

/// A path in the temporary directory that is the same on every rank (rank 0's process id).
std::string shared_temporary_path(const std::string& stem);

/// Rank 0 writes `text` to `path`; every rank returns once the file is there.
void write_shared_file(const std::string& path, const std::string& text);

/// The bytes of the file at `path` (empty when there is none).
std::string file_bytes(const std::string& path);

/// Every rank's columns of `local` (d × n_r), concatenated in rank order: the whole data set.
Matrix gather_columns(const MatrixView& local);

/// The largest relative difference between the numbers of two model documents of the same
/// structure: |a − b| / max(|a|, |b|, 10⁻⁶ · the largest magnitude of the array it belongs to),
/// so that a coefficient rounded to zero on one side and left at 10⁻¹¹ on the other does not
/// count as a relative difference of 1. Text, integers and structure must be equal (a failure
/// names the path); the fit's timings are skipped.
double model_difference(const nlohmann::json& a, const nlohmann::json& b,
                        const std::string& path = "");

/// Relative difference allowed between the K-rank and the single-process model (every number
/// of the model file: standardisation, centres, coefficients, the CV table). The sums over
/// ranks add the same terms in another order, which moves a sum by a few units in its last
/// place (~1e-16 relative); the λ-path solve (Ĥ + λI)⁻¹ĥ amplifies that by at most the
/// condition number of Ĥ + λI, about 1/λ ≤ 100 for the grid's smallest λ, times the growth
/// through the CV losses. 1e-9 leaves room for that and still fails on any real difference
/// (a different centre or fold moves the numbers by far more than 1e-6).
inline constexpr double kRankTolerance = 1e-9;

/// Checks the difference of what every rank computed from the single process's: none on one
/// rank, at most `tolerance` on more. Rank 0 prints it.
void expect_difference_within(double difference, double tolerance, const std::string& name);

/// The KCDE model `fitted` (its kernels possibly behind the Gaussian-process trend's broad
/// component) cut to its kernels first … first + count − 1, with marginal weight ε and, where it
/// has a broad component, that component at weight δ: a rank's stretch of a model whose rows
/// stay on their ranks, made by hand so that ε and δ are set rather than fitted (the whole model
/// is the stretch of every kernel).
ConditionalMixture kernel_stretch(const ConditionalMixture& fitted, Index first, Index count,
                                  double marginal_weight, double broad_weight);

/// KCDE around the Gaussian-process trend on Yeo–Johnson's y (seed 3, no restarts), fitted on
/// one process to `pairs`.
ConditionalMixture gaussian_process_yeo_johnson_kcde(const test::PairSample& pairs);

/// This rank's rows when rank r holds the rows from cut(r) to cut(r + 1).
std::vector<Index> rows_of_rank(const std::function<Index(int)>& cut);

/// Equal shards of n rows; and shards of growing size where rank 0 holds none when there are
/// others.
std::vector<std::function<Index(int)>> shardings(Index n);

/// The model document of a fit of the rows `rows` of a data set under `context`: this rank's
/// rows under the communicator of all ranks, or all of them on one process.
using ShardModel =
    std::function<nlohmann::json(const std::vector<Index>& rows, const FitContext& context)>;

/// Fits on every sharding of n rows and compares each model with the single-process fit of all
/// of them: equal on one rank, within `tolerance` on more. Rank 0 prints the largest
/// difference.
void expect_same_model_on_every_sharding(Index n, const ShardModel& fit, const std::string& name,
                                         double tolerance = kRankTolerance);

/// Fits `fit(x, y, context)` — any fit of pairs with a `model` and a `report` — on every sharding
/// of `pairs` and compares each model with the single-process fit, as
/// expect_same_model_on_every_sharding.
template <typename PairFit>
void expect_same_pair_model(const test::PairSample& pairs, const PairFit& fit,
                            const std::string& name, double tolerance = kRankTolerance) {
  expect_same_model_on_every_sharding(
      pairs.x.cols(),
      [&](const std::vector<Index>& rows, const FitContext& context) {
        return conditional_model_to_json(unnamed_model(
            fit(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), context)));
      },
      name, tolerance);
}

/// A conditional fit of one rank's pairs and unlabelled inputs.
using ShardFit =
    std::function<ConditionalFit(const MatrixView& x, const MatrixView& y,
                                 const MatrixView& unlabeled, const FitContext& context)>;

/// Fits on every sharding of `pairs` (the unlabelled inputs split evenly) and compares each
/// model with the single-process fit of all of them: equal on one rank, within kRankTolerance
/// on more. Rank 0 prints the largest difference.
void expect_rank_count_does_not_matter(const test::PairSample& pairs, const Matrix& unlabeled,
                                       const ShardFit& fit, const std::string& name);

}  // namespace cdens::testing_mpi

// KCDE on K ranks, each holding a shard of the pairs, against the single-process fit of all the
// pairs with the same seed: the same standardisation, levels, held-out pairs and recording grid,
// and a leave-one-out criterion whose kernel sums each rank adds up over its shard before the
// ranks add theirs — so the same criterion up to the order of summation, the same search, and the
// same model. On one rank the fit is the single-process fit to the bit.
//
// Tolerances. The criterion's terms are logarithms of kernel sums added in another order: a few
// units in the last place of each sum; 1e-12 (absolute, in nats, or relative beyond 1) leaves a
// factor of about 100 for sums of many terms. The model: what the search does not decide — the
// standardisation, the rows, the levels, the line — is a sum in another order too, and within
// kRankTolerance (1e-9) as for LSCDE. The search (L-BFGS) is fed numbers that differ in their last
// places on different rank counts and ends where the criterion changes by less than 1e-5
// relative: its bandwidths agree to the accuracy the criterion determines them. In a direction
// the criterion hardly sees (an irrelevant input whose bandwidth heads for the upper bound) the
// rounding moves the end point most: kSearchTolerance = 1e-4 relative on the bandwidths and what
// follows from them (the output kernels' widths, the marginal weight, the report's numbers),
// measured at most 4.1e-6; the criterion at the end (the report's loo_nll) agrees within
// kRankTolerance, since it is stationary there.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>

#include "cdens/conditional/kcde.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/model_file.hpp"
#include "core/bandwidth_likelihood.hpp"
#include "core/samples.hpp"
#include "mpi_support.hpp"
#include "support.hpp"

namespace cdens {
namespace {

using testing_mpi::file_bytes;
using testing_mpi::rows_of_rank;
using testing_mpi::shardings;
using testing_mpi::world;

constexpr double kCriterionTolerance = 1e-12;
constexpr double kSearchTolerance = 1e-4;
constexpr double kTrendTolerance = 1e-8;
constexpr double kResidualTolerance = 1e-8;

/// The parts of a KCDE model document the bandwidth search decides — the input and output
/// bandwidths, the marginal weight, the report's numbers — moved out of `document` into the
/// document returned.
nlohmann::json searched_part(nlohmann::json& document) {
  nlohmann::json searched;
  for (const auto& [parent, key] :
       {std::pair{"/model/gate", "bandwidths"}, std::pair{"/model/gate", "marginal_weight"},
        std::pair{"/model", "scales"}, std::pair{"/fit", "hyperparameters"},
        std::pair{"/fit", "statistics"}}) {
    nlohmann::json& holder = document[nlohmann::json::json_pointer(parent)];
    if (!holder.contains(key)) continue;
    searched[std::string(parent) + "/" + key] = std::move(holder[key]);
    holder.erase(key);
  }
  return searched;
}

/// KCDE with `options` on every sharding of `pairs` against the single-process fit of all of
/// them: equal on one rank; on more, what the search decides within kSearchTolerance, the
/// criterion at its end and the rest of the model within kRankTolerance. Rank 0 prints the
/// largest differences.
void expect_same_kcde_on_every_sharding(const test::PairSample& pairs, const KcdeOptions& options,
                                        const std::string& name) {
  const auto model = [&](const std::vector<Index>& rows, const FitContext& context) {
    return conditional_model_to_json(unnamed_model(
        fit_kcde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options, context)));
  };
  std::vector<Index> every_row(static_cast<std::size_t>(pairs.x.cols()));
  std::iota(every_row.begin(), every_row.end(), Index{0});
  nlohmann::json single = model(every_row, FitContext{local_communicator()});
  const nlohmann::json single_searched = searched_part(single);
  for (const auto& cut : shardings(pairs.x.cols())) {
    nlohmann::json sharded = model(rows_of_rank(cut), FitContext{world()});
    const nlohmann::json sharded_searched = searched_part(sharded);
    const double rest = testing_mpi::model_difference(sharded, single);
    const double searched = testing_mpi::model_difference(sharded_searched, single_searched);
    const double criterion =
        testing_mpi::model_difference(sharded_searched["/fit/statistics"]["loo_nll"],
                                      single_searched["/fit/statistics"]["loo_nll"]);
    if (world().size() == 1) {
      EXPECT_EQ(rest + searched, 0.0) << name << ": one rank must fit the single-process model";
    }
    EXPECT_LE(rest, testing_mpi::kRankTolerance) << name;
    EXPECT_LE(criterion, testing_mpi::kRankTolerance) << name;
    EXPECT_LE(searched, kSearchTolerance) << name;
    if (world().rank() == 0) {
      std::cout << "[ ranks " << world().size() << " ] " << name
                << ": largest relative difference from the single-process model " << rest
                << ", of what the search decides " << searched << ", of the criterion there "
                << criterion << std::endl;
    }
  }
}

/// The largest difference between the entries of a and b, relative beyond magnitude 1.
double largest_difference(const Matrix& a, const Matrix& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  return ((a - b).array().abs() / a.array().abs().max(b.array().abs()).max(1.0)).maxCoeff();
}

/// The criterion of the samples z (k × n, the first c conditioning) with `kernels`, held out as
/// listed, on every sharding of z against the single-process criterion, at several θ: the terms,
/// the mean and its gradient equal on one rank and within kCriterionTolerance on more.
void expect_same_criterion(const Matrix& z, Index c, const std::vector<Index>& held_out,
                           const ColumnKernels& kernels, const std::vector<Vector>& thetas,
                           const std::string& name) {
  const BandwidthLikelihood single(z, c, held_out, 1, kernels);
  for (const auto& cut : shardings(z.cols())) {
    const BandwidthLikelihood sharded(gather_samples(z, rows_of_rank(cut)), c, held_out, 1, kernels,
                                      Vector(), world());
    EXPECT_EQ(sharded.n_samples(), z.cols());
    EXPECT_EQ(sharded.n_held_out(), single.n_held_out());
    double largest = 0.0;
    for (const Vector& theta : thetas) {
      Vector single_gradient;
      Vector single_terms;
      const double single_mean =
          single.mean_negative_log_likelihood(theta, &single_gradient, &single_terms);
      Vector gradient;
      Vector terms;
      const double mean = sharded.mean_negative_log_likelihood(theta, &gradient, &terms);
      ASSERT_TRUE(terms.allFinite() && gradient.allFinite()) << name;
      largest = std::max(
          {largest, largest_difference(terms, single_terms),
           largest_difference(gradient, single_gradient),
           largest_difference(Vector::Constant(1, mean), Vector::Constant(1, single_mean))});
      if (world().size() == 1) {
        EXPECT_EQ(terms, single_terms) << name;
        EXPECT_EQ(gradient, single_gradient) << name;
        EXPECT_EQ(mean, single_mean) << name;
      }
    }
    EXPECT_LE(largest, kCriterionTolerance) << name;
    if (world().rank() == 0) {
      std::cout << "[ ranks " << world().size() << " ] " << name
                << ": largest difference of the criterion from one process " << largest
                << std::endl;
    }
  }
}

/// KCDE around the Gaussian-process trend with `options` on every sharding of `pairs` against
/// the single-process fit, as expect_same_kcde_on_every_sharding but for the trend's own arrays:
/// its weights and variance factor are solves with K_UU's Cholesky factor, whose condition
/// number amplifies the rounding of the Gram summed in another order (measured up to 7e-7
/// relative in the variance factor), and its line's intercept is 0 up to rounding on
/// standardised pairs. They are compared through what they give — the trend's location and
/// scale at `queries`, within kTrendTolerance = 1e-8 (the hyperparameters are searched on the
/// same basis pairs by every rank, to the same bits: only the Gram's rounding reaches them,
/// measured up to 6.8e-11), and the log-densities there, which move with the bandwidths as in
/// EachRankKeepsItsOwnPairsAndTheRanksWriteTheModelOfAll (10 kSearchTolerance). The kernels sit
/// on the pairs' leave-one-out residuals, which carry the rounding as absolute differences of
/// about 1e-11 (measured up to 1.6e-11): relative to a residual near 0 up to 9.2e-10, so the
/// rest of the model file is held to kResidualTolerance = 1e-8.
void expect_same_trend_kcde(const test::PairSample& pairs, const test::PairSample& queries,
                            const KcdeOptions& options, const std::string& name) {
  const auto fit = [&](const std::vector<Index>& rows, const FitContext& context) {
    return unnamed_model(
        fit_kcde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options, context));
  };
  const auto document_without_trend = [](const ConditionalModel& model) {
    nlohmann::json document = conditional_model_to_json(model);
    document["model"]["output_trend"].erase("outputs");
    // The broad component's gate: its weight (the report's trend_component_weight) and the kernel
    // gate inside, whose bandwidths searched_part takes.
    nlohmann::json& gate = document["model"]["gate"];
    const nlohmann::json inner = gate["inner"];
    gate = inner;
    return document;
  };
  std::vector<Index> every_row(static_cast<std::size_t>(pairs.x.cols()));
  std::iota(every_row.begin(), every_row.end(), Index{0});
  const ConditionalModel single = fit(every_row, FitContext{local_communicator()});
  nlohmann::json single_document = document_without_trend(single);
  const nlohmann::json single_searched = searched_part(single_document);
  const Matrix single_location = single.mixture.trend_at(queries.x);
  const Matrix single_scale = single.mixture.scale_factors_at(queries.x);
  const Vector single_log_pdf = single.mixture.log_pdf(queries.x, queries.y);
  for (const auto& cut : shardings(pairs.x.cols())) {
    const ConditionalModel sharded = fit(rows_of_rank(cut), FitContext{world()});
    nlohmann::json document = document_without_trend(sharded);
    const nlohmann::json searched = searched_part(document);
    const double rest = testing_mpi::model_difference(document, single_document);
    const double search = testing_mpi::model_difference(searched, single_searched);
    const double trend =
        std::max(largest_difference(sharded.mixture.trend_at(queries.x), single_location),
                 largest_difference(sharded.mixture.scale_factors_at(queries.x), single_scale));
    const double log_pdf =
        (sharded.mixture.log_pdf(queries.x, queries.y) - single_log_pdf).cwiseAbs().maxCoeff();
    if (world().size() == 1) {
      EXPECT_EQ(rest + search + trend + log_pdf, 0.0) << name << ": one rank is one process";
    }
    EXPECT_LE(rest, kResidualTolerance) << name;
    EXPECT_LE(search, kSearchTolerance) << name;
    EXPECT_LE(trend, kTrendTolerance) << name;
    EXPECT_LE(log_pdf, 10 * kSearchTolerance) << name;
    if (world().rank() == 0) {
      std::cout << "[ ranks " << world().size() << " ] " << name
                << ": largest relative difference from the single-process model " << rest
                << ", of what the search decides " << search << ", of the trend " << trend
                << ", of the log-densities " << log_pdf << std::endl;
    }
  }
}

/// Standard normal samples, k × n.
Matrix normal_samples(Index k, Index n, std::uint64_t seed) {
  Rng rng(seed);
  return test::normal_matrix(k, n, rng);
}

TEST(KcdeRanks, TheCriterionIsTheSingleProcessOneOnAnyNumberOfRanks) {
  const Matrix z = normal_samples(3, 240, 4);
  const std::vector<Vector> thetas = {Vector::Constant(3, -1.0), Vector{{-0.3, 1.5, -2.0}},
                                      Vector{{-2.5, -0.5, 0.4}}};
  expect_same_criterion(z, 2, {}, {}, thetas, "every pair held out");
  std::vector<Index> some;
  for (Index i = 3; i < z.cols(); i += 7) some.push_back(i);
  expect_same_criterion(z, 2, some, {}, thetas, "34 held-out pairs");
  expect_same_criterion(z, 0, some, {}, thetas, "a density");
}

TEST(KcdeRanks, TheCriterionOfDiscreteColumns) {
  // x0 continuous, x1 unordered with 3 levels, y ordered on 0 … 4 (its kernel depends on the
  // centre, so every held-out pair is taken against all others on one process too).
  Rng rng(8);
  Matrix z(3, 200);
  for (Index i = 0; i < z.cols(); ++i) {
    z(0, i) = rng.normal();
    z(1, i) = std::floor(3.0 * rng.uniform());
    z(2, i) = std::clamp(std::round(z(1, i) + z(0, i) + rng.normal()), 0.0, 4.0);
  }
  const ColumnKernels kernels = {ColumnKernel(), ColumnKernel(ColumnKind::unordered, {0, 1, 2}),
                                 ColumnKernel(ColumnKind::ordered, {0, 1, 2, 3, 4})};
  expect_same_criterion(z, 2, {}, kernels, {Vector{{-0.5, 0.0, 0.0}}, Vector{{0.3, -2.0, 1.5}}},
                        "an unordered input and an ordered output");
}

TEST(KcdeRanks, APairFarFromEveryOtherIsTakenRelativeToItsNearest) {
  // The last pair lies 60 standard deviations out: at these bandwidths its kernel sums underflow
  // and are taken again relative to their largest term over every rank.
  Matrix z = normal_samples(2, 120, 5);
  z(0, z.cols() - 1) = 60.0;
  expect_same_criterion(z, 1, {}, {}, {Vector{{-1.5, -1.0}}}, "a far pair");
  expect_same_criterion(z, 1, {3, 50, z.cols() - 1}, {}, {Vector{{-1.5, -1.0}}},
                        "a far pair held out");
}

TEST(KcdeRanks, TheSameSeedFitsTheSameModelOnAnyNumberOfRanks) {
  // 300 pairs: exact leave-one-out, marginal mixing, the linear-Gaussian comparison of few pairs
  // (refitted without each, every rank taking every pair).
  KcdeOptions options;
  options.search.seed = 3;
  expect_same_kcde_on_every_sharding(test::sine_sample(300, 3, 21), options,
                                     "KCDE 300 pairs, exact");
}

TEST(KcdeRanks, ASubsampledCriterionWithScreenedStarts) {
  KcdeOptions options;
  options.search.seed = 9;
  options.exact_limit = 400;
  options.subsample_held_out = 150;
  options.screening_held_out = 60;
  options.marginal_mixing = MarginalMixing::none;
  expect_same_kcde_on_every_sharding(test::sine_sample(900, 2, 5), options,
                                     "KCDE 900 pairs, 150 held out");
}

TEST(KcdeRanks, TheLinearTrend) {
  // 700 pairs: the line and the linear-Gaussian comparison from the normal equations and
  // Newton steps summed over the ranks.
  KcdeOptions options;
  options.search.seed = 1;
  options.trend = KernelTrend::linear;
  options.exact_limit = 300;
  options.subsample_held_out = 200;
  test::PairSample pairs = test::sine_sample(700, 2, 13);
  pairs.y.row(0) += 0.8 * pairs.x.row(1);
  expect_same_kcde_on_every_sharding(pairs, options, "KCDE 700 pairs, linear trend");
}

TEST(KcdeRanks, DiscreteColumnsAndAGriddedOutput) {
  // x1 is a category, y is recorded to 0.05: the levels and the recording step are those of
  // every rank's pairs.
  test::PairSample pairs = test::sine_sample(400, 2, 17);
  Rng rng(3);
  for (Index i = 0; i < pairs.x.cols(); ++i) {
    pairs.x(1, i) = std::floor(4.0 * rng.uniform());
    pairs.y(0, i) = std::round((pairs.y(0, i) + 0.1 * pairs.x(1, i)) / 0.05) * 0.05;
  }
  KcdeOptions options;
  options.search.seed = 4;
  options.discrete = {1};
  expect_same_kcde_on_every_sharding(pairs, options,
                                     "KCDE 400 pairs, a categorical input, y on a grid");
  // An ordered output of integer levels.
  test::PairSample counts = test::sine_sample(300, 1, 2);
  counts.y = (counts.y.array() * 4.0).round().matrix();
  KcdeOptions ordered;
  ordered.search.seed = 2;
  ordered.ordered = {1};
  expect_same_kcde_on_every_sharding(counts, ordered, "KCDE 300 pairs, an ordered output");
}

TEST(KcdeRanks, EachRankKeepsItsOwnPairsAndTheRanksWriteTheModelOfAll) {
  // A subsampled criterion with marginal mixing and the linear-Gaussian comparison: every step
  // after the search from sums over the ranks. Each rank's model holds its own pairs only (a fit
  // that gathered every pair on each rank fails here); the file the ranks write in the binary
  // encoding is the single-process model within the tolerances of
  // expect_same_kcde_on_every_sharding, and its log-densities too.
  KcdeOptions options;
  options.search.seed = 6;
  options.exact_limit = 300;
  options.subsample_held_out = 120;
  options.screening_held_out = 50;
  const test::PairSample pairs = test::sine_sample(600, 2, 23);
  // Named, so that the file loads.
  const auto named = [](ConditionalFit fit) {
    ConditionalModel model = unnamed_model(std::move(fit));
    model.x_names = {"x0", "x1"};
    model.y_names = {"y"};
    return model;
  };
  const ConditionalModel single = named(fit_kcde(pairs.x, pairs.y, options, FitContext{}));
  nlohmann::json single_document = conditional_model_to_json(single);
  const nlohmann::json single_searched = searched_part(single_document);
  const test::PairSample queries = test::sine_sample(50, 2, 24);
  const Vector single_log_pdf = single.mixture.log_pdf(queries.x, queries.y);
  const std::string path = testing_mpi::shared_temporary_path("kcde_of_ranks");
  for (const auto& cut : shardings(pairs.x.cols())) {
    const std::vector<Index> rows = rows_of_rank(cut);
    const ConditionalModel model =
        named(fit_kcde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), options,
                       FitContext{world(), silent_progress(), {}, {}, true}));
    // A rank without pairs (the second sharding's rank 0) has no model of its own: then every
    // rank holds every pair, as a fit without rows_stay_on_ranks.
    const bool every_rank_has_pairs = world().sum_counts(rows.empty() ? 1 : 0) == 0;
    const bool own = world().size() > 1 && every_rank_has_pairs;
    EXPECT_EQ(model.report.rows_of_this_rank, own);
    EXPECT_EQ(model.mixture.n_components(), own ? static_cast<Index>(rows.size()) : pairs.x.cols());
    save_conditional_model_of_ranks(model, path, world(), 0);
    EXPECT_EQ(file_bytes(path).substr(0, 3), "\xd9\xd9\xf7");
    const ConditionalModel loaded = load_conditional_model(path);
    nlohmann::json document = conditional_model_to_json(loaded);
    const nlohmann::json searched = searched_part(document);
    EXPECT_LE(testing_mpi::model_difference(document, single_document),
              testing_mpi::kRankTolerance);
    EXPECT_LE(testing_mpi::model_difference(searched, single_searched), kSearchTolerance);
    // log p̂ moves with the bandwidths by at most |∂ log p̂ / ∂ log h| ≲ 10 times their relative
    // difference (a query a few bandwidths from its nearest pairs).
    EXPECT_LE((loaded.mixture.log_pdf(queries.x, queries.y) - single_log_pdf).cwiseAbs().maxCoeff(),
              10 * kSearchTolerance);
    world().sum_counts(0);  // every rank has read before the next write
  }
  if (world().rank() == 0) std::remove(path.c_str());
}

TEST(KcdeRanks, TheGaussianProcessTrendAndTheOutputTransform) {
  // The trend's basis (every pair, then a subset of 80 drawn for the global n), its Gram and
  // projection summed over the ranks, each rank's leave-one-out residuals; Yeo–Johnson's λ from
  // the profile likelihood's sums over the ranks. The process's broad component keeps every pair
  // on every rank.
  const test::PairSample pairs = test::sine_sample(200, 2, 41);
  KcdeOptions gp;
  gp.search.seed = 7;
  gp.search.n_restarts = 0;
  gp.trend = KernelTrend::gaussian_process;
  test::PairSample queries = test::sine_sample(100, 2, 42);
  expect_same_trend_kcde(pairs, queries, gp, "KCDE 200 pairs, trend = gp");
  KcdeOptions subset = gp;
  subset.trend_basis = 80;
  subset.y_transform = OutputTransformChoice::yeo_johnson;
  test::PairSample skewed = pairs;
  skewed.y = skewed.y.array().exp().matrix();
  queries.y = queries.y.array().exp().matrix();
  expect_same_trend_kcde(skewed, queries, subset,
                         "KCDE 200 pairs, trend = gp on 80 basis pairs, Yeo-Johnson y");
}

TEST(KcdeRanks, IdenticalRowsAreCountedAndKeptOnSeveralRanks) {
  // Each rank's pairs written twice. On one rank fit_method merges them: the fit of the pairs
  // once. On several each rank holds its own, so they are fitted as given — the single-process
  // fit of every rank's rows with duplicates = keep — and every rank's report counts the repeats
  // within the ranks' rows and says why they were kept (docs/methods/duplicates.md).
  const test::PairSample pairs = test::sine_sample(60, 1, 3);
  const std::vector<Index> rows = rows_of_rank(shardings(60).front());
  const Matrix x = gather_samples(pairs.x, rows).replicate(1, 2);
  const Matrix y = gather_samples(pairs.y, rows).replicate(1, 2);
  const OptionValues fixed{{"bandwidth", std::vector<double>{0.4, 0.3}}};
  const MethodEntry& kcde = find_method("kcde");
  const ConditionalModel fitted = fit_method(kcde, x, y, Matrix(1, 0), fixed, FitContext{world()});
  EXPECT_EQ(fitted.report.statistics.at("duplicate_rows"), 60.0);
  const bool several = world().size() > 1;
  OptionValues single_options = fixed;
  if (several) single_options["duplicates"] = std::string("keep");
  const ConditionalModel single =
      fit_method(kcde, testing_mpi::gather_columns(x), testing_mpi::gather_columns(y), Matrix(1, 0),
                 single_options, FitContext{local_communicator()});
  testing_mpi::expect_difference_within(
      testing_mpi::model_difference(fitted.mixture.to_json(), single.mixture.to_json()),
      testing_mpi::kRankTolerance, "KCDE, each rank's rows written twice");
  const bool says_kept =
      fitted.report.warnings.front().find("merged on one process only") != std::string::npos;
  EXPECT_EQ(says_kept, several);
}

TEST(KcdeRanks, ABadValueOnOneRankFailsOnEveryRank) {
  test::PairSample pairs = test::sine_sample(40, 2, 1);
  pairs.x(1, 39) = NAN;  // on the last rank
  const std::vector<Index> rows = rows_of_rank(shardings(40).front());
  // The same error on every rank (its sample index is the failing rank's own).
  const std::string message = test::message_of<DataError>([&] {
    fit_kcde(gather_samples(pairs.x, rows), gather_samples(pairs.y, rows), {}, FitContext{world()});
  });
  EXPECT_EQ(message.substr(0, 36), "x contains a non-finite value (nan) ") << message;
}

}  // namespace
}  // namespace cdens

#include "kernel_sums/kernel_sums.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "cdens/core/types.hpp"
#include "core/debug_note.hpp"
#include "kernel_sums/binned_kernel_sums.hpp"
#include "kernel_sums/block_tree_kernel_sums.hpp"
#include "kernel_sums/exact_kernel_sums.hpp"
#include "kernel_sums/gauss_transform_kernel_sums.hpp"
#include "kernel_sums/kd_tree.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"
#include "kernel_sums/regular_grid.hpp"
#include "kernel_sums/tree_kernel_sums.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Costs in nanoseconds per unit of work on one core, measured with bench/micro/bench_kernel_sums
// (Release, -march=native, AVX-512): they only need to be right within a factor of about two.
constexpr double kExactPairCost = 1.2;  // one exponent by GEMM, exp and sum, per dimension 0.1
constexpr double kExactPairCostPerDim = 0.1;
constexpr double kTreeNodeCost = 40.0;  // bounds of one node: box distances, two exps
constexpr double kTreePointCost = 5.0;  // one term of a leaf
constexpr double kTreeBuildCost = 3.0;  // per point and level
constexpr double kBinPointCost = 10.0;  // linear binning of one point, per corner
constexpr double kFftCellCost = 1.0;    // per cell of the FFT and per factor of two
// The binned path's FFT holds at most this many cells (2 × 32 MiB).
constexpr double kBinnedCellBudget = 4194304.0;
// The tree's cost is measured on this many queries, spread over the queries, when the exact
// path would take longer than kPilotThreshold nanoseconds of work.
constexpr Index kPilotQueries = 64;
constexpr double kPilotThreshold = 2e7;
// The leaves of the single tree, for few queries.
constexpr Index kSingleTreeLeaf = 32;

double exact_cost(Index n, Index m, Index d) {
  return static_cast<double>(n) * static_cast<double>(m) *
         (kExactPairCost + kExactPairCostPerDim * static_cast<double>(d));
}

/// Every kPilotQueries-th query of the centred queries, evenly spread.
Matrix pilot_queries(const Matrix& centred) {
  const Index m = centred.cols();
  const Index count = std::min(kPilotQueries, m);
  Matrix pilot(centred.rows(), count);
  for (Index k = 0; k < count; ++k) pilot.col(k) = centred.col(k * m / count);
  return pilot;
}

/// The relative error of a sum whose log is within log_tolerance: 1 − e^−log_tolerance.
double relative_tolerance_of(double log_tolerance) { return -std::expm1(-log_tolerance); }

/// The sums of the queries that the Gauss transform left (outside its grid, in boxes without a
/// finite cutoff, or whose bound failed): the dual tree of blocks for many, exact for few.
Vector remaining_log_sums(const KernelSumReference& reference, const Matrix& centred,
                          const std::vector<Index>& indices, double relative_tolerance,
                          int threads) {
  Matrix queries(centred.rows(), static_cast<Index>(indices.size()));
  for (std::size_t r = 0; r < indices.size(); ++r) {
    queries.col(static_cast<Index>(r)) = centred.col(indices[r]);
  }
  if (queries.cols() >= kKernelSumBlock && reference.size() >= 2 * kKernelSumBlock) {
    return block_tree_log_kernel_sums(reference.tree(kKernelSumBlock), reference, queries,
                                      relative_tolerance, threads);
  }
  return exact_log_kernel_sums(reference, queries, threads);
}

}  // namespace

std::string to_string(KernelSumPath path) {
  switch (path) {
    case KernelSumPath::automatic:
      return "automatic";
    case KernelSumPath::exact:
      return "exact";
    case KernelSumPath::tree:
      return "tree";
    case KernelSumPath::binned:
      return "binned";
    case KernelSumPath::gauss_transform:
      return "gauss_transform";
  }
  return "unknown";
}

KernelSums gaussian_kernel_log_sums(const MatrixView& points, const VectorView& weights,
                                    const MatrixView& queries, const KernelSumOptions& options) {
  return gaussian_kernel_log_sums(KernelSumReference(points, weights), queries, options);
}

namespace {

/// gaussian_kernel_log_sums, and with `factors` (C × the reference's points, ≥ 0) and `means`
/// (not null) gaussian_kernel_means' means into `means`.
KernelSums sums_and_means(const KernelSumReference& reference, const MatrixView& queries,
                          const KernelSumOptions& options, const Matrix* factors, Matrix* means) {
  if (!(options.log_tolerance >= 0.0) || !std::isfinite(options.log_tolerance)) {
    throw InvalidArgument("kernel sums: the log tolerance must be finite and non-negative");
  }
  const auto started = std::chrono::steady_clock::now();
  const int threads = resolve_threads(options.threads);
  const Matrix centred = reference.centred(queries);
  const Index n = reference.size();
  const Index m = centred.cols();
  const Index d = reference.dimension();
  const double relative_tolerance = relative_tolerance_of(options.log_tolerance);
  std::ostringstream choice;  // why the path was taken, for the debug note

  KernelSums sums;
  sums.path = options.path;
  bool means_summed = false;  // whether the dual tree of blocks gave the means with the sums
  // The binned path needs the queries on a regular grid, d ≤ 3 and an FFT within budget.
  std::optional<RegularGrid> grid;
  std::optional<BinnedPlan> binned_plan;
  if (d <= 3 && (sums.path == KernelSumPath::automatic || sums.path == KernelSumPath::binned)) {
    grid = regular_grid_of(centred);
    if (grid) {
      binned_plan =
          plan_binned_kernel_sums(reference, *grid, relative_tolerance, kBinnedCellBudget);
    }
  }
  if (sums.path == KernelSumPath::binned && !binned_plan) {
    debug_note(std::string("kernel sums: no binned path: ") +
               (grid ? "the FFT would exceed its budget" : "the queries are not a regular grid"));
    throw InvalidArgument(
        "kernel sums: the binned path needs queries on a regular grid in at most 3 dimensions, a "
        "positive tolerance, and an FFT of at most 4,194,304 cells for that tolerance");
  }
  // The Gauss transform needs d ≤ 3 and a positive tolerance; by choice, also many queries and
  // exact sums that would take longer than kPilotThreshold (planning it builds three grids).
  std::optional<GaussTransformPlan> transform_plan;
  const bool forced_transform = sums.path == KernelSumPath::gauss_transform;
  if (forced_transform || (sums.path == KernelSumPath::automatic && m >= kKernelSumBlock &&
                           exact_cost(n, m, d) > kPilotThreshold)) {
    GaussTransformCosts costs;
    costs.exact_pair = kExactPairCost + kExactPairCostPerDim * static_cast<double>(d);
    transform_plan =
        plan_gauss_transform(reference, centred, relative_tolerance, costs, !forced_transform);
  }
  if (forced_transform && !transform_plan) {
    throw InvalidArgument(
        "kernel sums: the Gauss transform path needs at most 3 dimensions, a positive tolerance "
        "and points spread over at most 8,388,608 boxes");
  }
  if (sums.path == KernelSumPath::automatic) {
    sums.path = KernelSumPath::exact;
    double best = exact_cost(n, m, d);
    choice << "exact cost " << best * 1e-9 << " s";
    if (binned_plan) {
      const double binned = kBinPointCost * static_cast<double>(n) * static_cast<double>(1 << d) +
                            kFftCellCost * binned_plan->cells * std::log2(binned_plan->cells);
      choice << ", binned cost " << binned * 1e-9 << " s (" << binned_plan->cells << " cells)";
      if (binned < best) {
        best = binned;
        sums.path = KernelSumPath::binned;
      }
    }
    // With many queries the tree path is the dual tree of blocks, whose base case is the exact
    // path's: it never costs much more than the exact path (its box bounds and sorting are per
    // pair of blocks of 256), so it replaces the exact path whenever an error is allowed and the
    // trees cost less to build than the sums they could save.
    const double build =
        kTreeBuildCost * (static_cast<double>(n) * std::log2(static_cast<double>(n)) +
                          static_cast<double>(m) * std::log2(static_cast<double>(m) + 1.0));
    if (sums.path == KernelSumPath::exact && relative_tolerance > 0.0 && m >= kKernelSumBlock &&
        n >= 2 * kKernelSumBlock && build < 0.5 * best) {
      sums.path = KernelSumPath::tree;
      choice << ", dual tree of blocks (build " << build * 1e-9 << " s)";
    } else if (best > kPilotThreshold && n >= 256 && build < best && m < kKernelSumBlock) {
      // Few queries: the single tree, measured on some of them.
      const TreeWork work = measure_tree_work(reference.tree(kSingleTreeLeaf), reference,
                                              pilot_queries(centred), relative_tolerance);
      const double tree_cost =
          build + static_cast<double>(m) * (kTreeNodeCost * work.nodes_per_query +
                                            kTreePointCost * work.points_per_query);
      choice << ", tree cost " << tree_cost * 1e-9 << " s (" << work.nodes_per_query
             << " nodes and " << work.points_per_query << " points per query)";
      if (tree_cost < best) sums.path = KernelSumPath::tree;
    }
    // The Gauss transform (series or direct sums per box) against what was chosen: for the dual
    // tree, its estimated pairs (the cutoff ball widened by a block's side) summed exactly.
    if (transform_plan) {
      const double rival =
          sums.path == KernelSumPath::tree
              ? transform_plan->tree_pairs *
                    (kExactPairCost + kExactPairCostPerDim * static_cast<double>(d))
              : best;
      choice << ", Gauss transform cost " << transform_plan->cost * 1e-9 << " s against "
             << rival * 1e-9 << " s";
      if (transform_plan->cost < rival) sums.path = KernelSumPath::gauss_transform;
    }
  }
  switch (sums.path) {
    case KernelSumPath::tree:
      // Means of factors take the dual tree whatever the number of queries: its one pass sums
      // them all, where the single tree would sum each on a tree of its own.
      if (m >= kKernelSumBlock || factors != nullptr) {
        double summed = 0.0;
        sums.log_sums =
            block_tree_log_kernel_sums(reference.tree(kKernelSumBlock), reference, centred,
                                       relative_tolerance, threads, &summed, factors, means);
        means_summed = true;
        choice << "; dual tree of blocks, " << 100.0 * summed << " % of block pairs summed";
      } else {
        sums.log_sums = tree_log_kernel_sums(reference.tree(kSingleTreeLeaf), reference, centred,
                                             relative_tolerance, threads);
        choice << "; single tree per query";
      }
      break;
    case KernelSumPath::binned: {
      BinnedFallbacks fallbacks;
      sums.log_sums = binned_log_kernel_sums(reference, *grid, centred, *binned_plan,
                                             relative_tolerance, threads, &fallbacks);
      choice << "; binned on " << binned_plan->cells << " cells, refinement "
             << binned_plan->refinement[0] << ", grid points recomputed: " << fallbacks.direct
             << " by direct sums, " << fallbacks.exact << " exactly";
      break;
    }
    case KernelSumPath::gauss_transform: {
      std::vector<Index> remaining;
      sums.log_sums = gauss_transform_log_kernel_sums(*transform_plan, centred, relative_tolerance,
                                                      threads, &remaining);
      if (!remaining.empty()) {
        const Vector rest =
            remaining_log_sums(reference, centred, remaining, relative_tolerance, threads);
        for (std::size_t r = 0; r < remaining.size(); ++r) {
          sums.log_sums(remaining[r]) = rest(static_cast<Index>(r));
        }
      }
      const auto direct =
          std::count(transform_plan->box_direct.begin(), transform_plan->box_direct.end(), 1);
      choice << "; Gauss transform, boxes of side " << transform_plan->grid.side << ", order "
             << transform_plan->order << ", " << transform_plan->box_cell.size() << " boxes ("
             << direct << " summed directly); queries recomputed by the tree or exact path: "
             << remaining.size();
      break;
    }
    default:
      sums.log_sums = exact_log_kernel_sums(reference, centred, threads);
      break;
  }
  if (factors != nullptr && means != nullptr && !means_summed) {
    // The other paths sum each factor's kernels as a sum of its own (weights ŵ_i f_ic).
    means->resize(factors->rows(), m);
    for (Index c = 0; c < factors->rows(); ++c) {
      const Vector weights = reference.weights.cwiseProduct(factors->row(c).transpose());
      if (!(weights.maxCoeff() > 0.0)) {
        means->row(c).setZero();
        continue;
      }
      KernelSumOptions factor_options = options;
      factor_options.path = KernelSumPath::automatic;
      const Vector log_factor_sums =
          gaussian_kernel_log_sums(KernelSumReference(reference.points, weights), centred,
                                   factor_options)
              .log_sums;
      means->row(c) = (log_factor_sums - sums.log_sums).array().exp().transpose();
    }
  }
  // Queries whose exponents the GEMM form would lose (coordinates far beyond the points' spread)
  // take the difference form, whatever the path: their sums stay exact, never NaN. O(n d) each,
  // one query per task.
  std::vector<Index> far;
  for (Index j = 0; j < m; ++j) {
    if (reference.loses_exponents(centred.col(j))) far.push_back(j);
  }
  parallel_for(threads, static_cast<Index>(far.size()), [&](Index r) {
    const Index j = far[static_cast<std::size_t>(r)];
    sums.log_sums(j) = reference.log_space_sum(centred.col(j));
    if (factors != nullptr && means != nullptr) {  // and their means
      means->col(j) = reference.log_space_means(centred.col(j), *factors);
    }
  });
  if (!far.empty()) choice << "; " << far.size() << " queries by differences (far coordinates)";
  sums.log_sums.array() += reference.log_total;
  if (debug_notes_enabled()) {
    std::ostringstream note;
    note << "kernel sums: path " << to_string(sums.path) << ", n = " << n << ", m = " << m
         << ", d = " << d << ", log tolerance " << options.log_tolerance << "; " << choice.str()
         << "; took "
         << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
         << " s";
    debug_note(note.str());
  }
  return sums;
}

}  // namespace

KernelSums gaussian_kernel_log_sums(const KernelSumReference& reference, const MatrixView& queries,
                                    const KernelSumOptions& options) {
  return sums_and_means(reference, queries, options, nullptr, nullptr);
}

KernelMeans gaussian_kernel_means(const KernelSumReference& reference, const MatrixView& factors,
                                  const MatrixView& queries, const KernelSumOptions& options) {
  if (factors.cols() != reference.points_given) {
    throw InvalidArgument("kernel sums: one column of factors per point is needed");
  }
  const Matrix kept = reference.factors_of_kept(factors);
  if (!kept.allFinite() || (kept.array() < 0.0).any()) {
    throw InvalidArgument("kernel sums: the factors must be finite and non-negative");
  }
  KernelMeans result;
  result.sums = sums_and_means(reference, queries, options, &kept, &result.means);
  return result;
}

}  // namespace cdens

#include "parallel/sharded_sampling_plan.hpp"

#include <algorithm>
#include <cstdint>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/rng.hpp"
#include "core/random_streams.hpp"
#include "core/sampling_plan_draws.hpp"

namespace cdens {
namespace {

/// Appends `values` as doubles (row indices below 2^53 are exact).
void append(std::vector<double>& message, const std::vector<Index>& values) {
  message.push_back(static_cast<double>(values.size()));
  message.insert(message.end(), values.begin(), values.end());
}

/// Reads what append wrote, from `position` on.
std::vector<Index> take(const std::vector<double>& message, std::size_t& position) {
  const auto count = static_cast<std::size_t>(message[position++]);
  std::vector<Index> values(message.begin() + static_cast<std::ptrdiff_t>(position),
                            message.begin() + static_cast<std::ptrdiff_t>(position + count));
  position += count;
  return values;
}

/// Rank 0's part: the plan of draw_sampling_plan(n, n_centers, folds, seed) as one message (the
/// prefix of the centre order that holds every fold's centres, their positions in it, the fold
/// sizes), and the fold of every row. The same draws as draw_sampling_plan (tested), in 12 bytes
/// per row at most rather than its 36: the permutations in 4-byte entries, the folds as labels.
std::vector<double> plan_message(Index n, Index n_centers, int folds, std::uint64_t seed,
                                 std::vector<std::int32_t>& fold_of_rows) {
  Rng rng(seed, random_stream::kSamplingPlan);
  const std::vector<std::uint32_t> center_order =
      draw_center_order<std::uint32_t>(n, n_centers, rng);
  const Index b = std::min(n_centers, n);
  Index candidates = b;
  std::vector<Index> fold_sizes;
  std::vector<std::vector<Index>> fold_positions;
  if (folds > 0) {
    fold_of_rows = draw_fold_labels(n, folds, rng);
    fold_sizes.assign(static_cast<std::size_t>(folds), 0);
    for (const std::int32_t k : fold_of_rows) ++fold_sizes[static_cast<std::size_t>(k)];
    for (int k = 0; k < folds; ++k) {
      fold_positions.push_back(positions_outside_fold(center_order, fold_of_rows, k, b));
      candidates = std::max(candidates, fold_positions.back().back() + 1);
    }
  }
  std::vector<double> message;
  append(message, std::vector<Index>(center_order.begin(), center_order.begin() + candidates));
  message.push_back(static_cast<double>(b));
  message.push_back(static_cast<double>(fold_positions.size()));
  for (const auto& positions : fold_positions) append(message, positions);
  append(message, fold_sizes);
  return message;
}

}  // namespace

ShardedSamplingPlan draw_sharded_sampling_plan(Index local_rows, Index n_centers, int folds,
                                               std::uint64_t seed,
                                               const Communicator& communicator) {
  const Index n = communicator.sum_counts(local_rows);
  std::vector<double> message;
  std::vector<std::int32_t> fold_of_rows;
  agree_on_errors(communicator, [&] {
    if (communicator.rank() == 0) message = plan_message(n, n_centers, folds, seed, fold_of_rows);
  });
  double length = static_cast<double>(message.size());
  communicator.broadcast(&length, 1, 0);
  message.resize(static_cast<std::size_t>(length));
  communicator.broadcast(message.data(), message.size(), 0);

  ShardedSamplingPlan plan;
  std::size_t position = 0;
  plan.candidate_order = take(message, position);
  plan.center_count = static_cast<Index>(message[position++]);
  const auto fold_center_lists = static_cast<std::size_t>(message[position++]);
  for (std::size_t k = 0; k < fold_center_lists; ++k) {
    plan.fold_centers.push_back(take(message, position));
  }
  plan.fold_sizes = take(message, position);
  if (!plan.fold_sizes.empty()) {
    plan.local_folds = communicator.scatter_from_root(fold_of_rows, local_rows);
  }
  return plan;
}

std::vector<std::int32_t> draw_sharded_fold_labels(Index local_rows, int folds, std::uint64_t seed,
                                                   std::uint64_t stream,
                                                   const Communicator& communicator) {
  const Index n = communicator.sum_counts(local_rows);
  std::vector<std::int32_t> every;
  agree_on_errors(communicator, [&] {
    if (communicator.rank() == 0) {
      Rng rng(seed, stream);
      every = draw_fold_labels(n, folds, rng);
    }
  });
  return communicator.scatter_from_root(every, local_rows);
}

Matrix gather_global_samples(const MatrixView& local, Index first_sample,
                             const std::vector<Index>& samples, const Communicator& communicator) {
  // Each rank sends (position, values…) for the samples it holds.
  const Index d = local.rows();
  std::vector<double> mine;
  for (std::size_t p = 0; p < samples.size(); ++p) {
    const Index column = samples[p] - first_sample;
    if (column < 0 || column >= local.cols()) continue;
    mine.push_back(static_cast<double>(p));
    mine.insert(mine.end(), local.col(column).data(), local.col(column).data() + d);
  }
  const std::vector<double> all = communicator.gather_all(mine);
  Matrix gathered(d, static_cast<Index>(samples.size()));
  for (std::size_t e = 0; e < all.size(); e += static_cast<std::size_t>(d + 1)) {
    gathered.col(static_cast<Index>(all[e])) = Eigen::Map<const Vector>(all.data() + e + 1, d);
  }
  return gathered;
}

ShardedPairs prepare_sharded_pairs(const MatrixView& x, const MatrixView& y, Index n_centers,
                                   int folds, std::uint64_t seed, const Vector& sample_weights,
                                   const FitContext& context) {
  const Communicator& communicator = context.communicator;
  require_equal_on_every_rank(communicator,
                              {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                              "the dimensions of x and y");
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  const auto scaling = [&](const MatrixView& data, std::string_view what,
                           const std::vector<std::string>& names) {
    return sample_weights.size() > 0 ? Standardizer::fit(data, sample_weights, what, names)
                                     : Standardizer::fit(data, communicator, what, names);
  };
  ShardedPairs pairs{scaling(x, "x", x_names),
                     scaling(y, "y", y_names),
                     communicator.sum_counts(x.cols()),
                     {},
                     {},
                     draw_sharded_sampling_plan(x.cols(), n_centers, folds, seed, communicator),
                     {},
                     {}};
  pairs.z = pairs.x_scaling.transform(x);
  pairs.t = pairs.y_scaling.transform(y);
  const Index first_row = communicator.sum_counts_below(x.cols());
  pairs.candidates_x =
      gather_global_samples(pairs.z, first_row, pairs.plan.candidate_order, communicator);
  pairs.candidates_y =
      gather_global_samples(pairs.t, first_row, pairs.plan.candidate_order, communicator);
  return pairs;
}

}  // namespace cdens

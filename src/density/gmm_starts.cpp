#include "density/gmm_starts.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {
namespace {

/// The global index of the sample drawn with probability proportional to its weight, from u
/// uniform on [0, 1): the first sample, in global order, at which the running sum of the
/// weights of every rank's samples exceeds u · Σ weights (the last sample when rounding leaves
/// it at or below). This rank's `weights` belong to the samples from global index
/// `first_sample` on. Nothing when every weight is zero.
///
/// The ranks exchange only their totals; the rank whose stretch of the running sum holds the
/// target scans its own weights and sends the index to all. On one process that is the scan of
/// all weights, term for term.
std::optional<Index> draw_proportionally(const Vector& weights, double u, Index first_sample,
                                         const Communicator& communicator) {
  const std::vector<double> totals = communicator.gather_all({weights.sum()});
  // Where each rank's stretch of the running sum starts, adding the totals in rank order (the
  // same bits on every rank).
  std::vector<double> starts(totals.size());
  double total = 0.0;
  for (std::size_t r = 0; r < totals.size(); ++r) {
    starts[r] = total;
    total += totals[r];
  }
  if (!(total > 0.0)) return std::nullopt;
  const double target = u * total;
  // The stretches are ordered and the target lies below their end: the last non-empty stretch
  // that starts at or below it holds it.
  int holder = 0;
  for (std::size_t r = 0; r < totals.size(); ++r) {
    if (totals[r] > 0.0 && starts[r] <= target) holder = static_cast<int>(r);
  }
  double drawn = 0.0;
  if (communicator.rank() == holder) {
    Index chosen = weights.size() - 1;
    double cumulative = starts[static_cast<std::size_t>(holder)];
    for (Index j = 0; j < weights.size(); ++j) {
      cumulative += weights(j);
      if (cumulative > target) {
        chosen = j;
        break;
      }
    }
    drawn = static_cast<double>(first_sample + chosen);  // exact below 2^53 samples
  }
  communicator.broadcast(&drawn, 1, holder);
  return static_cast<Index>(drawn);
}

}  // namespace

void kmeans_plus_plus_start(const EmSamples& samples, const GmmOptions& options, Rng& rng,
                            Vector& weights, Matrix& centers, Matrix& variances) {
  const MatrixView& z = samples.z;
  const Communicator& communicator = samples.communicator;
  const Index n = samples.n;
  const Index k_count = options.n_components;
  const Index first_sample = communicator.sum_counts_below(z.cols());
  // The sample at a global index, from the rank that holds it.
  const auto sample_at = [&](Index index) {
    return gather_global_samples(z, first_sample, {index}, communicator);
  };
  const auto uniform_index = [n](double u) {
    return std::min(static_cast<Index>(u * static_cast<double>(n)), n - 1);
  };
  // With sample weights c_k every draw is proportional to c_k times its probability unweighted
  // (weighted k-means++): a row of weight k draws as k copies of it would.
  const Vector* sample_weights = samples.sample_weights;
  const auto weighted = [&](const Vector& values) {
    return sample_weights != nullptr ? Vector(values.cwiseProduct(*sample_weights)) : values;
  };
  centers.resize(z.rows(), k_count);
  const double first_u = rng.uniform();
  centers.col(0) = sample_at(
      sample_weights != nullptr
          ? draw_proportionally(*sample_weights, first_u, first_sample, communicator).value()
          : uniform_index(first_u));
  Vector nearest = squared_distances(z, centers.col(0)).col(0);
  for (Index l = 1; l < k_count; ++l) {
    // A sample with probability proportional to its squared distance to the nearest centre;
    // uniform when every sample sits on a centre.
    const double u = rng.uniform();
    const std::optional<Index> drawn =
        draw_proportionally(weighted(nearest), u, first_sample, communicator);
    centers.col(l) = sample_at(drawn ? *drawn : uniform_index(u));
    nearest = nearest.cwiseMin(squared_distances(z, centers.col(l)).col(0));
  }
  weights.resize(k_count);
  variances.resize(z.rows(), k_count);
  variances.setConstant(1.0);
  maximization(nearest_center_moments(samples, centers), samples.total_weight(),
               options.variance_floor, weights, centers, variances);
}

void box_start(Index dimension, const GmmOptions& options, Rng& rng, Vector& weights,
               Matrix& centers, Matrix& variances) {
  const Index k_count = options.n_components;
  weights = Vector::Constant(k_count, 1.0 / static_cast<double>(k_count));
  centers.resize(dimension, k_count);
  for (Index l = 0; l < k_count; ++l) {
    for (Index i = 0; i < dimension; ++i) {
      centers(i, l) = options.box_lower + (options.box_upper - options.box_lower) * rng.uniform();
    }
  }
  variances = Matrix::Constant(dimension, k_count,
                               std::max(options.initial_variance, options.variance_floor));
}

}  // namespace cdens

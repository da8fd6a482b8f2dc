#include <algorithm>
#include <cmath>

#include "cdens/conditional/sacde.hpp"
#include "cdens/core/types.hpp"
#include "conditional/kernel_cde_engine.hpp"
#include "conditional/kernel_gates.hpp"
#include "core/log_space.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/parallel.hpp"

namespace cdens {

std::vector<double> sa_cde_width_grid() { return log_spaced(1e-2, 2.0, 20); }

StandardizedPairs standardize_pairs(const MatrixView& x, const MatrixView& y,
                                    const FitContext& context) {
  require_training_pairs(x, y);
  if (context.communicator.size() > 1) {
    throw InvalidArgument(
        "the kernel estimators keep every training pair and run on a single process");
  }
  return standardize_shard(x, y, context);
}

StandardizedPairs standardize_shard(const MatrixView& x, const MatrixView& y,
                                    const FitContext& context) {
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    require_training_shard(x, y, communicator);
    if (communicator.size() > 1 && context.weighted()) {
      throw InvalidArgument(
          "sample weights run on one process: the weighted standardisation is one process's");
    }
  });
  require_equal_on_every_rank(communicator,
                              {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                              "the dimensions of x and y");
  const auto [x_names, y_names] = context.pair_names(x.rows(), y.rows());
  const auto scaling = [&](const MatrixView& data, std::string_view what,
                           const std::vector<std::string>& names) {
    return context.weighted() ? Standardizer::fit(data, context.sample_weights, what, names)
                              : Standardizer::fit(data, communicator, what, names);
  };
  StandardizedPairs pairs{scaling(x, "x", x_names), scaling(y, "y", y_names), {}};
  pairs.samples = {pairs.x_scaling.transform(x), pairs.y_scaling.transform(y)};
  return pairs;
}

StandardizedSamples gather_pairs(const StandardizedSamples& pairs,
                                 const std::vector<Index>& indices) {
  return {gather_samples(pairs.z, indices), gather_samples(pairs.t, indices)};
}

std::vector<StandardizedSamples> fold_training_sets(const StandardizedSamples& pairs,
                                                    const KFold& folds) {
  std::vector<StandardizedSamples> sets;
  for (int k = 0; k < folds.n_folds(); ++k) sets.push_back(gather_pairs(pairs, folds.train(k)));
  return sets;
}

double log_gaussian_normalizer(Index dimension, double sigma) {
  return static_cast<double>(dimension) * (0.5 * kLog2Pi + std::log(sigma));
}

Vector kernel_scales(const std::vector<double>& sigmas) {
  Vector scales(static_cast<Index>(sigmas.size()));
  for (std::size_t s = 0; s < sigmas.size(); ++s) {
    scales(static_cast<Index>(s)) = 0.5 / (sigmas[s] * sigmas[s]);
  }
  return scales;
}

KernelLogSums kernel_log_sums(const StandardizedSamples& queries,
                              const StandardizedSamples& reference, const VectorView& scales,
                              Index self_offset) {
  const Index m = queries.z.cols();
  Matrix input_distances = squared_distances(reference.z, queries.z);  // n × m
  Matrix joint_distances = squared_distances(reference.t, queries.t);
  joint_distances += input_distances;
  if (self_offset >= 0) {
    if (reference.z.cols() < 2 || self_offset + m > reference.z.cols()) {
      throw InvalidArgument("leave-one-out kernel sums need the queries among the references");
    }
    // An infinite distance is a term of weight zero.
    for (Index j = 0; j < m; ++j) {
      input_distances(self_offset + j, j) = INFINITY;
      joint_distances(self_offset + j, j) = INFINITY;
    }
  }
  KernelLogSums sums{Matrix(scales.size(), m), Matrix(scales.size(), m)};
  for (Index j = 0; j < m; ++j) {
    log_sum_exp_scaled(joint_distances.col(j), scales, sums.joint.col(j));
    log_sum_exp_scaled(input_distances.col(j), scales, sums.input.col(j));
  }
  return sums;
}

Matrix columns_by_blocks(Index rows, Index n, int threads,
                         const std::function<Matrix(Index begin, Index size)>& block) {
  constexpr Index kBlock = 256;
  Matrix result(rows, n);
  parallel_for(threads, (n + kBlock - 1) / kBlock, [&](Index b) {
    const Index begin = b * kBlock;
    const Index size = std::min(kBlock, n - begin);
    result.middleCols(begin, size) = block(begin, size);
  });
  return result;
}

Matrix grid_candidates(const std::vector<double>& grid) {
  return Eigen::Map<const Vector>(grid.data(), static_cast<Index>(grid.size()));
}

ConditionalMixture kernel_cde_model(const StandardizedPairs& data,
                                    std::shared_ptr<const ConditionalGate> gate, Matrix centers_y,
                                    double sigma, FitReport& report) {
  report.statistics["n_train"] = static_cast<double>(data.samples.z.cols());
  return make_output_kernel_mixture(data.x_scaling, data.y_scaling, std::move(gate),
                                    std::move(centers_y), sigma);
}

}  // namespace cdens

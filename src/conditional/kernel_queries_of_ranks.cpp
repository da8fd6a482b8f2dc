#include "conditional/kernel_queries_of_ranks.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "cdens/core/types.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "core/log_space.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// Queries broadcast at a time: (d_x + d_y) doubles each, and three log-sums back.
constexpr Index kQueryChunk = 4096;
/// Kernel weights of a gate with discrete inputs formed at a time (K × queries doubles).
constexpr Index kGateBlockValues = Index(1) << 20;

/// This rank's part of the model taken apart: its kernels alone (ε = 0, no broad component),
/// their output components weighted by the row weights alone (the marginal counterpart), and the
/// broad component alone.
struct RankParts {
  std::shared_ptr<const ProductKernelGate> gate;
  std::optional<ConditionalMixture> conditional;
  std::optional<ConditionalMixture> marginal;
  std::optional<ConditionalMixture> broad;
  double marginal_weight = 0.0;
  double broad_weight = 0.0;
  double log_row_weight = 0.0;  ///< log Σ_k c_k over this rank's rows
};

RankParts rank_parts(const ConditionalMixture& own) {
  RankParts parts;
  const ConditionalGate* gate = &own.gate();
  if (const auto* broad = dynamic_cast<const BroadComponentGate*>(gate)) {
    parts.broad_weight = broad->weight();
    gate = &broad->inner();
  }
  const auto* kernels = dynamic_cast<const ProductKernelGate*>(gate);
  if (kernels == nullptr || own.trend_groups().size() != 1) {
    throw InvalidArgument(
        "queries of a model whose rows stay on their ranks need a kcde model; this one's gate is " +
        own.gate().kind());
  }
  const Index count = kernels->n_components();
  const Index input_dim = own.input_dim();
  parts.marginal_weight = kernels->marginal_weight();
  parts.gate = std::make_shared<const ProductKernelGate>(
      kernels->centers_x(), kernels->bandwidths(), kernels->kernels(), 0.0, kernels->row_weights());
  const Vector log_row_weights = kernels->log_marginal_weights();
  parts.log_row_weight = log_sum_exp(log_row_weights);
  const std::vector<TrendGroup> group = {own.trend_groups().front()};
  const auto part = [&](std::shared_ptr<const ConditionalGate> part_gate, Index first, Index size) {
    return ConditionalMixture(own.x_scaling(), own.y_scaling(), std::move(part_gate),
                              MixtureOutputs::gaussian(own.centers().middleCols(first, size),
                                                       own.scales().middleCols(first, size))
                                  .with_groups(group)
                                  .with_output_kernels(own.output_kernels()));
  };
  parts.conditional.emplace(part(parts.gate, 0, count));
  parts.marginal.emplace(
      part(std::make_shared<const ConstantGate>(input_dim, log_row_weights), 0, count));
  if (own.n_components() > count) parts.broad.emplace(part(uniform_gate(input_dim, 1), count, 1));
  return parts;
}

/// log Σ_k c_k w_k(z_j) over this rank's kernels for standardised inputs z.
Vector log_gate_sums(const ProductKernelGate& gate, const MatrixView& z) {
  if (const std::optional<GaussianKernelCenters> kernel = gate.gaussian_kernel()) {
    const Index count = kernel->centers->cols();
    const Vector weights = kernel->row_weights ? *kernel->row_weights : Vector(Vector::Ones(count));
    KernelSumOptions third_tolerance;  // as the mixture's own kernel sums
    third_tolerance.log_tolerance = 1e-6 / 3.0;
    const Matrix points = kernel->inverse_widths.asDiagonal() * *kernel->centers;
    const Matrix queries = kernel->inverse_widths.asDiagonal() * z;
    return gaussian_kernel_log_sums(points, weights, queries, third_tolerance).log_sums;
  }
  const Index count = gate.n_components();
  const Index block = std::clamp<Index>(kGateBlockValues / count, 1, 256);
  Vector sums(z.cols());
  parallel_for(resolve_threads(0), (z.cols() + block - 1) / block, [&](Index b) {
    const Index begin = b * block;
    const Index width = std::min(block, z.cols() - begin);
    Matrix log_weights(count, width);
    gate.log_weights(z.middleCols(begin, width), log_weights);
    for (Index j = 0; j < width; ++j) sums(begin + j) = log_sum_exp(log_weights.col(j));
  });
  return sums;
}

/// Every rank's `log_values` (rows × m) combined into log Σ_r exp(log_values_r), the same bits on
/// every rank: the largest of each entry first, so that no sum underflows.
Matrix log_sum_over_ranks(const Matrix& log_values, const Communicator& communicator) {
  Matrix largest = log_values;
  communicator.allreduce_max(largest.data(), static_cast<std::size_t>(largest.size()));
  Matrix shifted(log_values.rows(), log_values.cols());
  for (Index i = 0; i < log_values.size(); ++i) {
    shifted(i) = largest(i) == -INFINITY ? 0.0 : std::exp(log_values(i) - largest(i));
  }
  communicator.allreduce_sum(shifted.data(), static_cast<std::size_t>(shifted.size()));
  for (Index i = 0; i < log_values.size(); ++i) {
    shifted(i) = largest(i) == -INFINITY ? -INFINITY : largest(i) + std::log(shifted(i));
  }
  return shifted;
}

}  // namespace

Vector log_pdf_of_ranks(const ConditionalMixture& own_rows, const MatrixView& x,
                        const MatrixView& y, const Communicator& communicator) {
  if (communicator.size() == 1) return own_rows.log_pdf(x, y);
  const Index input_dim = own_rows.input_dim();
  const Index output_dim = own_rows.output_dim();
  agree_on_errors(communicator, [&] {
    if (x.rows() != input_dim || y.rows() != output_dim || x.cols() != y.cols()) {
      throw InvalidArgument(
          "the queries must be d_x × m and d_y × m pairs (d_x = " + std::to_string(input_dim) +
          ", d_y = " + std::to_string(output_dim) + ")");
    }
  });
  std::optional<RankParts> parts;
  agree_on_errors(communicator, [&] { parts.emplace(rank_parts(own_rows)); });
  double total_weight = std::exp(parts->log_row_weight);
  communicator.allreduce_sum(&total_weight, 1);
  const double log_total_weight = std::log(total_weight);
  const double log_keep = std::log1p(-parts->marginal_weight);
  const double log_marginal = std::log(parts->marginal_weight);
  const double log_keep_kernels = std::log1p(-parts->broad_weight);
  const double log_broad = std::log(parts->broad_weight);

  Vector result(x.cols());
  for (int owner = 0; owner < communicator.size(); ++owner) {
    const bool own = communicator.rank() == owner;
    double count = own ? static_cast<double>(x.cols()) : 0.0;
    communicator.broadcast(&count, 1, owner);
    for (Index begin = 0; begin < static_cast<Index>(count); begin += kQueryChunk) {
      const Index width = std::min(kQueryChunk, static_cast<Index>(count) - begin);
      Matrix pairs(input_dim + output_dim, width);
      if (own) pairs << x.middleCols(begin, width), y.middleCols(begin, width);
      communicator.broadcast(pairs.data(), static_cast<std::size_t>(pairs.size()), owner);
      const auto queries_x = pairs.topRows(input_dim);
      const auto queries_y = pairs.bottomRows(output_dim);
      // Rows: log Σ c_k w_k p_k, log Σ c_k w_k, log Σ c_k p_k over this rank's kernels.
      Matrix partial(3, width);
      std::optional<Vector> broad;
      agree_on_errors(communicator, [&] {
        const Vector gate =
            log_gate_sums(*parts->gate, own_rows.x_scaling().transform_query(queries_x, "x"));
        const Vector conditional = parts->conditional->log_pdf(queries_x, queries_y);
        partial.row(0) =
            (gate.array() == -INFINITY).select(-INFINITY, gate + conditional).transpose();
        partial.row(1) = gate.transpose();
        partial.row(2) =
            (parts->marginal->log_pdf(queries_x, queries_y).array() + parts->log_row_weight)
                .transpose();
        if (parts->broad) broad = parts->broad->log_pdf(queries_x, queries_y);
      });
      const Matrix sums = log_sum_over_ranks(partial, communicator);
      if (!own) continue;
      for (Index j = 0; j < width; ++j) {
        const double marginal = sums(2, j) - log_total_weight;
        // Where every kernel weight is zero the mixture falls back to its marginal counterpart.
        const double conditional = sums(1, j) == -INFINITY ? marginal : sums(0, j) - sums(1, j);
        double value = parts->marginal_weight > 0.0
                           ? log_add_exp(log_keep + conditional, log_marginal + marginal)
                           : conditional;
        if (broad) value = log_add_exp(log_keep_kernels + value, log_broad + (*broad)(j));
        result(begin + j) = value;
      }
    }
  }
  return result;
}

}  // namespace cdens

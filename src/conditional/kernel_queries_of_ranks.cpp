#include "conditional/kernel_queries_of_ranks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cdens/core/types.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "core/log_space.hpp"
#include "kernel_sums/kernel_sum_reference.hpp"
#include "kernel_sums/kernel_sums.hpp"
#include "model/given_components.hpp"
#include "model/remote_queries.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// Queries broadcast at a time: d_x doubles each (and d_y for the log-densities).
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

/// log Σ_k c_k w_k(z) over this rank's kernels: by the kernel-sum engine over points prepared
/// once (their tree kept from one query to the next) where the kernels are Gaussian, each within
/// 1e−6/3 as the mixture's own sums; else every weight, in blocks.
class GateSums {
 public:
  explicit GateSums(std::shared_ptr<const ProductKernelGate> gate) : gate_(std::move(gate)) {
    if (const std::optional<GaussianKernelCenters> kernel = gate_->gaussian_kernel()) {
      const Index count = kernel->centers->cols();
      inverse_widths_ = kernel->inverse_widths;
      reference_.emplace(kernel->inverse_widths.asDiagonal() * *kernel->centers,
                         kernel->row_weights ? *kernel->row_weights : Vector(Vector::Ones(count)));
    }
  }

  /// At the standardised inputs z.
  Vector operator()(const MatrixView& z) const {
    if (reference_) {
      KernelSumOptions third_tolerance;
      third_tolerance.log_tolerance = 1e-6 / 3.0;
      return gaussian_kernel_log_sums(*reference_, inverse_widths_.asDiagonal() * z,
                                      third_tolerance)
          .log_sums;
    }
    const Index count = gate_->n_components();
    const Index block = std::clamp<Index>(kGateBlockValues / count, 1, 256);
    Vector sums(z.cols());
    parallel_for(resolve_threads(0), (z.cols() + block - 1) / block, [&](Index b) {
      const Index begin = b * block;
      const Index width = std::min(block, z.cols() - begin);
      Matrix log_weights(count, width);
      gate_->log_weights(z.middleCols(begin, width), log_weights);
      for (Index j = 0; j < width; ++j) sums(begin + j) = log_sum_exp(log_weights.col(j));
    });
    return sums;
  }

 private:
  std::shared_ptr<const ProductKernelGate> gate_;
  Vector inverse_widths_;
  std::optional<KernelSumReference> reference_;
};

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

/// For every rank in turn, each chunk of its query columns `queries` (the same rows on every
/// rank) broadcast to all: `answer(owner, begin, chunk)` on every rank, `begin` the chunk's first
/// column among the owner's.
void for_each_broadcast_chunk(
    const MatrixView& queries, const Communicator& communicator,
    const std::function<void(int owner, Index begin, const Matrix& chunk)>& answer) {
  for (int owner = 0; owner < communicator.size(); ++owner) {
    const bool own = communicator.rank() == owner;
    double count = own ? static_cast<double>(queries.cols()) : 0.0;
    communicator.broadcast(&count, 1, owner);
    for (Index begin = 0; begin < static_cast<Index>(count); begin += kQueryChunk) {
      const Index width = std::min(kQueryChunk, static_cast<Index>(count) - begin);
      Matrix chunk(queries.rows(), width);
      if (own) chunk = queries.middleCols(begin, width);
      communicator.broadcast(chunk.data(), static_cast<std::size_t>(chunk.size()), owner);
      answer(owner, begin, chunk);
    }
  }
}

/// A list of reduced components appended to `out`: its size, then each component's probability,
/// centre, scale and trend group.
void append_components(const detail::ScalarComponentList& components, std::vector<double>& out) {
  out.push_back(static_cast<double>(components.weights.size()));
  for (std::size_t m = 0; m < components.weights.size(); ++m) {
    out.insert(out.end(), {components.weights[m], components.centers[m], components.scales[m],
                           static_cast<double>(components.groups[m])});
  }
}

/// `at` moved past the list append_components wrote there.
void skip_components(const std::vector<double>& values, std::size_t& at) {
  at += 1 + 4 * static_cast<std::size_t>(values[at]);
}

/// The list append_components wrote at `at`, whose components are added to `into` with their
/// probabilities times `share`; `at` moves past it.
void read_components(const std::vector<double>& values, std::size_t& at, double share,
                     detail::ScalarComponentList& into) {
  const auto count = static_cast<std::size_t>(values[at++]);
  for (std::size_t m = 0; m < count; ++m, at += 4) {
    if (share > 0.0 && values[at] > 0.0) {
      into.push_back(share * values[at], values[at + 1], values[at + 2],
                     static_cast<std::size_t>(values[at + 3]));
    }
  }
}

/// The chunk of a rank's answers in columns begin … of `into` (sized for all of its queries).
void place_answers(const ConditionalMixture::ScalarAnswers& chunk, Index begin,
                   ConditionalMixture::ScalarAnswers& into) {
  const Index width = chunk.quantiles.cols();
  into.quantiles.middleCols(begin, width) = chunk.quantiles;
  for (std::size_t r = 0; r < into.regions.size(); ++r) {
    std::copy(chunk.regions[r].begin(), chunk.regions[r].end(),
              into.regions[r].begin() + static_cast<std::ptrdiff_t>(begin));
  }
  if (into.cdf.size() > 0) into.cdf.segment(begin, width) = chunk.cdf;
  if (into.crps.size() > 0) into.crps.segment(begin, width) = chunk.crps;
  if (into.highest_density_probability.size() > 0) {
    into.highest_density_probability.segment(begin, width) = chunk.highest_density_probability;
  }
  if (into.squared_norm.size() > 0) into.squared_norm.segment(begin, width) = chunk.squared_norm;
}

/// This rank's parts of the model of every rank's rows, and the queries of that model: each a
/// collective call, every rank with queries of its own (none included).
class PartsOfRanks {
 public:
  PartsOfRanks(ConditionalMixture own_rows, const Communicator& communicator)
      : own_rows_(std::move(own_rows)), communicator_(communicator) {
    agree_on_errors(communicator, [&] {
      parts_.emplace(rank_parts(own_rows_));
      // The query tolerance τ split between the parts as one process splits it
      // (neighbour_components.hpp): the kernel part, of share (1 − δ)(1 − ε), within τ/2 (its
      // neighbours and its reduction); the marginal part within τ/2 of its share
      // (prepare_marginal_part): every probability within τ/2 + τ/2.
      parts_->conditional =
          parts_->conditional->with_query_tolerance(own_rows_.query_tolerance() / 2.0);
      gate_sums_.emplace(parts_->gate);
    });
    double total_weight = std::exp(parts_->log_row_weight);
    communicator.allreduce_sum(&total_weight, 1);
    log_total_weight_ = std::log(total_weight);
  }

  Vector log_pdf(const MatrixView& x, const MatrixView& y) const {
    const Index input_dim = own_rows_.input_dim();
    const Index output_dim = own_rows_.output_dim();
    agree_on_errors(communicator_, [&] {
      if (x.rows() != input_dim || y.rows() != output_dim || x.cols() != y.cols()) {
        throw InvalidArgument(
            "the queries must be d_x × m and d_y × m pairs (d_x = " + std::to_string(input_dim) +
            ", d_y = " + std::to_string(output_dim) + ")");
      }
    });
    const RankParts& parts = *parts_;
    const double log_keep = std::log1p(-parts.marginal_weight);
    const double log_marginal = std::log(parts.marginal_weight);
    const double log_keep_kernels = std::log1p(-parts.broad_weight);
    const double log_broad = std::log(parts.broad_weight);
    Vector result(x.cols());
    Matrix pairs(input_dim + output_dim, x.cols());
    pairs << x, y;
    for_each_broadcast_chunk(
        pairs, communicator_, [&](int owner, Index begin, const Matrix& chunk) {
          const Index width = chunk.cols();
          const auto queries_x = chunk.topRows(input_dim);
          const auto queries_y = chunk.bottomRows(output_dim);
          // Rows: log Σ c_k w_k p_k, log Σ c_k w_k, log Σ c_k p_k over this rank's kernels.
          Matrix partial(3, width);
          std::optional<Vector> broad;
          agree_on_errors(communicator_, [&] {
            const Vector gate =
                (*gate_sums_)(own_rows_.x_scaling().transform_query(queries_x, "x"));
            const Vector conditional = parts.conditional->log_pdf(queries_x, queries_y);
            partial.row(0) =
                (gate.array() == -INFINITY).select(-INFINITY, gate + conditional).transpose();
            partial.row(1) = gate.transpose();
            partial.row(2) = (parts.conditional->marginal_log_pdf(queries_x, queries_y).array() +
                              parts.log_row_weight)
                                 .transpose();
            if (parts.broad) broad = parts.broad->log_pdf(queries_x, queries_y);
          });
          const Matrix sums = log_sum_over_ranks(partial, communicator_);
          if (communicator_.rank() != owner) return;
          for (Index j = 0; j < width; ++j) {
            const double marginal = sums(2, j) - log_total_weight_;
            // Where every kernel weight is zero the mixture falls back to its marginal counterpart.
            const double conditional = sums(1, j) == -INFINITY ? marginal : sums(0, j) - sums(1, j);
            double value = parts.marginal_weight > 0.0
                               ? log_add_exp(log_keep + conditional, log_marginal + marginal)
                               : conditional;
            if (broad) value = log_add_exp(log_keep_kernels + value, log_broad + (*broad)(j));
            result(begin + j) = value;
          }
        });
    return result;
  }

  ConditionalMixture::ScalarAnswers scalar_answers(
      const MatrixView& x, const MatrixView& y,
      const ConditionalMixture::ScalarQueries& queries) const {
    ConditionalMixture::ScalarAnswers answers =
        ConditionalMixture::ScalarAnswers::sized_for(queries, x.cols());
    const bool with_y = queries.cdf || queries.crps || queries.highest_density_probability;
    for_each_chunk(
        x, [&](Index begin, const Matrix& chunk, const detail::GivenComponents::Rows& rows) {
          const Matrix chunk_y = with_y ? Matrix(y.middleCols(begin, chunk.cols())) : Matrix(1, 0);
          place_answers(
              detail::GivenComponents::scalar_answers(own_rows_, chunk, chunk_y, queries, rows),
              begin, answers);
        });
    return answers;
  }

  ConditionalMixture::OutputMoments mean_and_variance(const MatrixView& x) const {
    ConditionalMixture::OutputMoments moments{Matrix(1, x.cols()), Matrix(1, x.cols())};
    for_each_chunk(
        x, [&](Index begin, const Matrix& chunk, const detail::GivenComponents::Rows& rows) {
          const ConditionalMixture::OutputMoments part =
              detail::GivenComponents::mean_and_variance(own_rows_, chunk, rows);
          moments.means.middleCols(begin, chunk.cols()) = part.means;
          moments.covariances.middleCols(begin, chunk.cols()) = part.covariances;
        });
    return moments;
  }

  Matrix sample(const MatrixView& x, Index n_per_input, std::uint64_t seed) const {
    agree_on_errors(communicator_, [&] {
      if (n_per_input < 1) {
        throw InvalidArgument("the number of samples per input must be at least 1");
      }
    });
    Matrix draws(1, x.cols() * n_per_input);
    for_each_chunk(
        x, [&](Index begin, const Matrix& chunk, const detail::GivenComponents::Rows& rows) {
          draws.middleCols(begin * n_per_input, chunk.cols() * n_per_input) =
              detail::GivenComponents::sample(own_rows_, chunk, rows, n_per_input, seed, begin);
        });
    return draws;
  }

 private:
  /// Every rank's marginal part, reduced once (on the first query that needs it: every rank
  /// asks the same queries in the same order) and sent to all; the broad component.
  void prepare_marginal_part() const {
    if (marginal_) return;
    std::vector<double> marginal;  // log Σ_{k∈r} c_k, then the marginal part's components
    detail::ScalarComponentList broad;
    agree_on_errors(communicator_, [&] {
      // The marginal part, of share (1 − δ) ε, within τ / (2 (1 − δ) ε) (at most
      // kLargestReductionTolerance): it moves every probability by at most τ/2. It is also where
      // the kernel part falls back to, so it is reduced whatever ε (within τ/2 at ε = 0).
      const double tolerance = own_rows_.query_tolerance();
      const double marginal_share = (1.0 - parts_->broad_weight) * parts_->marginal_weight;
      const Matrix any_input = Matrix::Zero(own_rows_.input_dim(), 1);
      marginal.push_back(parts_->log_row_weight);
      append_components(detail::GivenComponents::reduced_at(
                            parts_->marginal->with_query_tolerance(tolerance), any_input,
                            tolerance / (2.0 * (marginal_share > 0.0 ? marginal_share : 1.0)))
                            .front(),
                        marginal);
      if (parts_->broad)
        broad = detail::GivenComponents::reduced_at(*parts_->broad, any_input).front();
    });
    const std::vector<double> every = communicator_.gather_all(marginal);
    std::vector<double> log_weights;
    std::vector<std::size_t> lists;
    for (std::size_t at = 0; at < every.size();) {
      log_weights.push_back(every[at++]);
      lists.push_back(at);
      skip_components(every, at);
    }
    const double log_total = log_sum_exp(
        Eigen::Map<const Vector>(log_weights.data(), static_cast<Index>(log_weights.size())));
    // Rank r's share of the marginal part: Σ_{k∈r} c_k / Σ_k c_k.
    detail::ScalarComponentList combined;
    for (std::size_t r = 0; r < lists.size(); ++r) {
      read_components(every, lists[r], std::exp(log_weights[r] - log_total), combined);
    }
    marginal_ = std::move(combined);
    broad_ = std::move(broad);
  }

  /// `answer(begin, x_chunk, rows)` on this rank for each chunk of its inputs x (every rank calls
  /// it with its own), rows[j] the reduced components at x_{begin + j}.
  void for_each_chunk(
      const MatrixView& x,
      const std::function<void(Index begin, const Matrix& chunk,
                               const detail::GivenComponents::Rows& rows)>& answer) const {
    prepare_marginal_part();
    for_each_broadcast_chunk(x, communicator_, [&](int owner, Index begin, const Matrix& chunk) {
      const Index width = chunk.cols();
      // This rank's part at each input: log Σ_{k∈r} c_k w_k, then its kernels' reduced components.
      std::vector<double> part;
      agree_on_errors(communicator_, [&] {
        const Vector gate = (*gate_sums_)(own_rows_.x_scaling().transform_query(chunk, "x"));
        const detail::GivenComponents::Rows kernels =
            detail::GivenComponents::reduced_at(*parts_->conditional, chunk);
        for (Index j = 0; j < width; ++j) {
          part.push_back(gate(j));
          append_components(kernels[static_cast<std::size_t>(j)], part);
        }
      });
      const std::vector<double> every = communicator_.gather_all(part);
      detail::GivenComponents::Rows rows;
      if (communicator_.rank() == owner) rows = combined_rows(every, width);
      // The owner's answers fail on every rank, so that none waits for a chunk it never sends.
      agree_on_errors(communicator_, [&] {
        if (communicator_.rank() == owner) answer(begin, chunk, rows);
      });
    });
  }

  /// Every rank's parts at `width` inputs (each rank's log-sums and kernel components, in rank
  /// order, as gathered) combined with the marginal part and the broad component into the
  /// reduced components of the model of every rank's rows at each input.
  detail::GivenComponents::Rows combined_rows(const std::vector<double>& every, Index width) const {
    const double kernel_share = (1.0 - parts_->broad_weight) * (1.0 - parts_->marginal_weight);
    const double marginal_share = (1.0 - parts_->broad_weight) * parts_->marginal_weight;
    // Each rank's stretch of `every`: its inputs' lists in order.
    std::vector<std::size_t> at(static_cast<std::size_t>(communicator_.size()));
    std::size_t next = 0;
    for (std::size_t& first : at) {
      first = next;
      for (Index j = 0; j < width; ++j) {
        ++next;  // the input's log-sum
        skip_components(every, next);
      }
    }
    detail::GivenComponents::Rows rows(static_cast<std::size_t>(width));
    Vector log_sums(static_cast<Index>(at.size()));
    for (Index j = 0; j < width; ++j) {
      detail::ScalarComponentList& row = rows[static_cast<std::size_t>(j)];
      for (std::size_t r = 0; r < at.size(); ++r) log_sums(static_cast<Index>(r)) = every[at[r]];
      const double total = log_sum_exp(log_sums);
      // Where every kernel weight is zero the mixture falls back to its marginal counterpart.
      const bool no_kernel = total == -INFINITY;
      for (std::size_t r = 0; r < at.size(); ++r) {
        const double share =
            no_kernel ? 0.0 : kernel_share * std::exp(log_sums(static_cast<Index>(r)) - total);
        ++at[r];
        read_components(every, at[r], share, row);
      }
      const double marginal = no_kernel ? 1.0 - parts_->broad_weight : marginal_share;
      if (marginal > 0.0) {
        for (std::size_t m = 0; m < marginal_->weights.size(); ++m) {
          row.push_back(marginal * marginal_->weights[m], marginal_->centers[m],
                        marginal_->scales[m], marginal_->groups[m]);
        }
      }
      for (std::size_t m = 0; m < broad_->weights.size(); ++m) {
        row.push_back(parts_->broad_weight * broad_->weights[m], broad_->centers[m],
                      broad_->scales[m], broad_->groups[m]);
      }
    }
    return rows;
  }

  ConditionalMixture own_rows_;
  const Communicator& communicator_;
  std::optional<RankParts> parts_;
  std::optional<GateSums> gate_sums_;
  double log_total_weight_ = 0.0;  ///< log Σ_k c_k over every rank's rows
  /// Every rank's marginal part at its share, summing to 1; the broad component (probability 1)
  /// or none (prepare_marginal_part).
  mutable std::optional<detail::ScalarComponentList> marginal_;
  mutable std::optional<detail::ScalarComponentList> broad_;
};

}  // namespace

Vector log_pdf_of_ranks(const ConditionalMixture& own_rows, const MatrixView& x,
                        const MatrixView& y, const Communicator& communicator) {
  if (communicator.size() == 1) return own_rows.log_pdf(x, y);
  return PartsOfRanks(own_rows, communicator).log_pdf(x, y);
}

ConditionalMixture::ScalarAnswers scalar_answers_of_ranks(
    const ConditionalMixture& own_rows, const MatrixView& x, const MatrixView& y,
    const ConditionalMixture::ScalarQueries& queries, const Communicator& communicator) {
  if (communicator.size() == 1) return own_rows.scalar_answers(x, y, queries);
  return PartsOfRanks(own_rows, communicator).scalar_answers(x, y, queries);
}

ConditionalMixture::OutputMoments mean_and_variance_of_ranks(const ConditionalMixture& own_rows,
                                                             const MatrixView& x,
                                                             const Communicator& communicator) {
  if (communicator.size() == 1) return own_rows.mean_and_covariance(x);
  return PartsOfRanks(own_rows, communicator).mean_and_variance(x);
}

Matrix sample_of_ranks(const ConditionalMixture& own_rows, const MatrixView& x, Index n_per_input,
                       std::uint64_t seed, const Communicator& communicator) {
  if (communicator.size() == 1) return own_rows.sample(x, n_per_input, seed);
  return PartsOfRanks(own_rows, communicator).sample(x, n_per_input, seed);
}

std::optional<ConditionalMixture> stretch_of_rank(const ConditionalMixture& whole,
                                                  const Communicator& communicator) {
  const auto* gate = dynamic_cast<const ProductKernelGate*>(&whole.gate());
  const int size = communicator.size();
  if (gate == nullptr || gate->row_weights().size() > 0 || whole.trend_groups().size() != 1 ||
      whole.atom() || whole.n_components() != gate->n_components() || gate->n_components() < size) {
    return std::nullopt;
  }
  const Index n = gate->n_components();
  const int rank = communicator.rank();
  const Index first = n * rank / size;
  const Index count = n * (rank + 1) / size - first;
  ConditionalMixture stretch(whole.x_scaling(), whole.y_scaling(),
                             std::make_shared<const ProductKernelGate>(
                                 gate->centers_x().middleCols(first, count), gate->bandwidths(),
                                 gate->kernels(), gate->marginal_weight()),
                             MixtureOutputs::gaussian(whole.centers().middleCols(first, count),
                                                      whole.scales().middleCols(first, count))
                                 .with_groups(whole.trend_groups())
                                 .with_output_kernels(whole.output_kernels()));
  if (whole.input_range()) stretch = stretch.with_input_range(*whole.input_range());
  return stretch.with_query_tolerance(whole.query_tolerance());
}

namespace {

/// The collective call rank 0 asks the others to join next (broadcast as one double).
enum class QueryCall { stop, log_pdf, scalar_answers, moments, sample };

void announce(QueryCall call, const Communicator& communicator) {
  auto value = static_cast<double>(call);
  communicator.broadcast(&value, 1, 0);
}

/// Rank 0's queries of the model of every rank's stretch: the parts kept from one query to the
/// next (the kernel neighbours' tree, the marginal part's reduction).
class QueriesOfRanks : public detail::RemoteQueries {
 public:
  QueriesOfRanks(const ConditionalMixture& own_rows, const Communicator& communicator)
      : parts_(own_rows, communicator), communicator_(communicator) {}

  Vector log_pdf(const MatrixView& x, const MatrixView& y) const override {
    announce(QueryCall::log_pdf, communicator_);
    return parts_.log_pdf(x, y);
  }
  ConditionalMixture::ScalarAnswers scalar_answers(
      const MatrixView& x, const MatrixView& y,
      const ConditionalMixture::ScalarQueries& queries) const override {
    announce(QueryCall::scalar_answers, communicator_);
    return parts_.scalar_answers(x, y, queries);
  }
  ConditionalMixture::OutputMoments mean_and_variance(const MatrixView& x) const override {
    announce(QueryCall::moments, communicator_);
    return parts_.mean_and_variance(x);
  }
  Matrix sample(const MatrixView& x, Index n_per_input, std::uint64_t seed) const override {
    announce(QueryCall::sample, communicator_);
    return parts_.sample(x, n_per_input, seed);
  }

 private:
  PartsOfRanks parts_;
  const Communicator& communicator_;
};

}  // namespace

ConditionalMixture model_of_ranks(const ConditionalMixture& own_rows,
                                  const Communicator& communicator) {
  return detail::RemoteQueries::answering_through(
      own_rows, std::make_shared<const QueriesOfRanks>(own_rows, communicator));
}

void serve_queries_of_ranks(const ConditionalMixture& own_rows, const Communicator& communicator) {
  // No queries of this rank's own: it adds its parts to rank 0's.
  const PartsOfRanks parts(own_rows, communicator);
  const Matrix x(own_rows.input_dim(), 0);
  const Matrix y(own_rows.output_dim(), 0);
  for (;;) {
    double value = 0.0;
    communicator.broadcast(&value, 1, 0);
    try {
      switch (static_cast<QueryCall>(static_cast<int>(value))) {
        case QueryCall::stop:
          return;
        case QueryCall::log_pdf:
          parts.log_pdf(x, y);
          break;
        case QueryCall::scalar_answers:
          parts.scalar_answers(x, Matrix(1, 0), {});
          break;
        case QueryCall::moments:
          parts.mean_and_variance(x);
          break;
        case QueryCall::sample:
          parts.sample(x, 1, 0);
          break;
      }
    } catch (const Error&) {
      // Every rank failed alike (the calls agree on their errors): rank 0 reports it.
    }
  }
}

void stop_serving_queries(const Communicator& communicator) {
  announce(QueryCall::stop, communicator);
}

}  // namespace cdens

#include "core/bandwidth_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "core/sample_weights.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "parallel/parallel.hpp"
#include "parallel/sharded_sampling_plan.hpp"

namespace cdens {
namespace {

/// Reference samples handled together: every array of a chunk stays in the L1 cache while the
/// chunk's dimensions are added up.
constexpr Index kChunk = 256;
/// Held-out samples per parallel task when only some samples are held out.
constexpr Index kHeldOutBlock = 16;
/// Kernel values are taken as they are, exp(−½ q), while a sum stays above e^kPlainFloor: the
/// terms lost to the flush below e^kLogSmallestNormal are then under n·e^−108 of the sum. A sum
/// below it (a sample many bandwidths from every other) is recomputed relative to its largest
/// term.
constexpr double kPlainFloor = -600.0;

/// A chunk of reference samples seen from one held-out sample i.
struct Chunk {
  explicit Chunk(Index dimension)
      : squared(kChunk, dimension), score(kChunk, dimension), joint(kChunk), conditioning(kChunk) {}
  /// (z_id − z_jd)² / h_d², one column per dimension; −2 log L_d for a discrete one, so that the
  /// kernel value is always exp(−½ Σ_d squared_d).
  Matrix squared;
  /// ∂ log L_d / ∂θ_d of a discrete dimension (a continuous one's is its squared column).
  Matrix score;
  Eigen::ArrayXd joint;         ///< squared scaled distance over all dimensions, then kernel values
  Eigen::ArrayXd conditioning;  ///< the same over the conditioning dimensions
};

/// The layout of the sums of one held-out sample (a "record"): Σ_j w^A_ij, Σ_j w^B_ij, then the
/// moments Σ_j w^A_ij (z_id − z_jd)² / h_d² for every dimension and Σ_j w^B_ij (…) for the
/// conditioning ones.
Index record_size(Index k, Index c) { return 2 + k + c; }

}  // namespace

struct BandwidthLikelihood::Evaluation {
  /// n_r × k, this rank's samples: continuous columns divided by their bandwidths, discrete ones
  /// level indices.
  Matrix scaled;
  /// m × k, the held-out samples likewise; on one process empty (they are rows of `scaled`).
  Matrix scaled_held_out;
  /// For a discrete dimension d: −2 log L_d(a | b) at (b, a), so that the values of one held-out
  /// level a are contiguous (column a); empty for a continuous one.
  std::vector<Matrix> twice_negative_log;
  /// ∂ log L_d(a | b) / ∂θ_d at (b, a), when the gradient is wanted.
  std::vector<Matrix> derivatives;
  /// Whether each dimension is discrete.
  std::vector<bool> discrete;
  /// −2 log c_j of every sample j, the start of its squared distance (empty: no sample weights).
  Vector log_weight_offsets;
  /// 1 for this rank's samples at the atom, 0 for the others (null: no atom).
  const Vector* atom_flags = nullptr;
};

namespace {

/// The squared distances of the chunk [start, start + length) of this rank's samples from the
/// held-out sample in row `point` of `points` (and, with `scores`, the derivatives of discrete
/// dimensions); the held-out sample itself, this rank's sample `self` (−1: another rank's), is at
/// infinite distance (its kernel value is zero), and so, in the joint sum, is every sample on the
/// other side of the atom from it (`point_atom`: its atom flag, −1 without an atom).
template <class Evaluation>
void fill_distances(const Evaluation& evaluation, Index c, const Matrix& points, Index point,
                    Index self, double point_atom, Index start, Index length, bool scores,
                    Chunk& chunk) {
  const Matrix& scaled = evaluation.scaled;
  auto joint = chunk.joint.head(length);
  if (evaluation.log_weight_offsets.size() > 0) {
    joint = evaluation.log_weight_offsets.segment(start, length).array();
  } else {
    joint.setZero();
  }
  for (Index d = 0; d < scaled.cols(); ++d) {
    if (c > 0 && d == c) chunk.conditioning.head(length) = joint;
    auto squared = chunk.squared.col(d).head(length).array();
    const Matrix& table = evaluation.twice_negative_log[static_cast<std::size_t>(d)];
    if (table.size() == 0) {
      squared = (scaled.col(d).segment(start, length).array() - points(point, d)).square();
    } else {
      // Level indices: a gather from the table column of the held-out sample's level.
      const auto level = static_cast<Index>(points(point, d));
      const double* values = table.col(level).data();
      const double* derivatives =
          scores ? evaluation.derivatives[static_cast<std::size_t>(d)].col(level).data() : nullptr;
      const double* levels = scaled.col(d).data() + start;
      for (Index j = 0; j < length; ++j) {
        const auto other = static_cast<Index>(levels[j]);
        squared(j) = values[other];
        if (scores) chunk.score(j, d) = derivatives[other];
      }
    }
    joint += squared;
  }
  if (point_atom >= 0.0) {
    const auto flags = evaluation.atom_flags->segment(start, length).array();
    joint = (flags != point_atom).select(INFINITY, joint);
  }
  if (self >= start && self < start + length) {
    chunk.joint(self - start) = INFINITY;
    chunk.conditioning(self - start) = INFINITY;
  }
}

/// values = exp(−½ (q − shift)) in place, with exponents below kLogSmallestNormal raised to it:
/// a term that would be subnormal or zero counts as e^−708, which keeps subnormal numbers out of
/// the sums in one vectorised pass and changes a sum above e^kPlainFloor by less than n·e^−108
/// relative (the sample itself, at infinite distance, is such a term).
template <class Values>
void to_kernel_values(Values&& values, double shift) {
  values = (-0.5 * (values - shift)).max(kLogSmallestNormal).exp();
}

void to_kernel_values(Chunk& chunk, Index c, Index length, double joint_shift,
                      double conditioning_shift) {
  to_kernel_values(chunk.joint.head(length), joint_shift);
  if (c > 0) to_kernel_values(chunk.conditioning.head(length), conditioning_shift);
}

/// ∂ log K / ∂θ_d of the chunk's pairs: the squared scaled difference of a continuous
/// dimension, the score of a discrete one (`discrete[d]`).
auto derivative_column(const Chunk& chunk, const std::vector<bool>& discrete, Index d,
                       Index length) {
  return (discrete[static_cast<std::size_t>(d)] ? chunk.score : chunk.squared)
      .col(d)
      .head(length)
      .array();
}

/// Adds the chunk's kernel values (and moments, with `moments`) to the record of sample i.
void add_to_row(const Chunk& chunk, const std::vector<bool>& discrete, Index c, Index length,
                bool moments, double* record) {
  const Index k = chunk.squared.cols();
  const auto joint = chunk.joint.head(length);
  const auto conditioning = chunk.conditioning.head(length);
  record[0] += joint.sum();
  if (c > 0) record[1] += conditioning.sum();
  if (!moments) return;
  for (Index d = 0; d < k; ++d) {
    const auto derivative = derivative_column(chunk, discrete, d, length);
    record[2 + d] += (joint * derivative).sum();
    if (d < c) record[2 + k + d] += (conditioning * derivative).sum();
  }
}

/// Adds the chunk's kernel values (and moments) to the records of its reference samples, kept
/// column-wise in `records` (one column per record entry) from row `offset` on.
void add_to_columns(const Chunk& chunk, const std::vector<bool>& discrete, Index c, Index length,
                    bool moments, Matrix& records, Index offset) {
  const Index k = chunk.squared.cols();
  const auto joint = chunk.joint.head(length);
  const auto conditioning = chunk.conditioning.head(length);
  records.col(0).segment(offset, length).array() += joint;
  if (c > 0) records.col(1).segment(offset, length).array() += conditioning;
  if (!moments) return;
  for (Index d = 0; d < k; ++d) {
    const auto derivative = derivative_column(chunk, discrete, d, length);
    records.col(2 + d).segment(offset, length).array() += joint * derivative;
    if (d < c) records.col(2 + k + d).segment(offset, length).array() += conditioning * derivative;
  }
}

/// −log p̂_{−i} (without the bandwidths' normalising constants) and its gradient from the
/// record of sample i, whose sums are relative to exp(−½ joint_shift) and
/// exp(−½ conditioning_shift); `log_others` is log Σ_{j≠i} c_j, a density's normalising sum. An
/// output dimension's normalising constant log h_d adds 1 to its derivative, a discrete output's
/// (a probability mass) nothing, nor a continuous one's where sample i is `at_atom` (a
/// probability too).
void finish_row(const double* record, const std::vector<bool>& discrete, double log_others, Index k,
                Index c, double joint_shift, double conditioning_shift, bool at_atom, double& term,
                Matrix* gradient_rows, Index row) {
  const double joint_log_sum = -0.5 * joint_shift + std::log(record[0]);
  const double conditioning_log_sum =
      c > 0 ? -0.5 * conditioning_shift + std::log(record[1]) : log_others;
  term = conditioning_log_sum - joint_log_sum;
  if (gradient_rows == nullptr) return;
  for (Index d = 0; d < k; ++d) {
    double derivative = -record[2 + d] / record[0];
    if (d < c) {
      derivative += record[2 + k + d] / record[1];
    } else if (!discrete[static_cast<std::size_t>(d)] && !at_atom) {
      derivative += 1.0;
    }
    (*gradient_rows)(row, d) = derivative;
  }
}

}  // namespace

BandwidthLikelihood::BandwidthLikelihood(const MatrixView& samples, Index conditioning_dimensions,
                                         std::vector<Index> held_out, int threads,
                                         ColumnKernels kernels, Vector sample_weights,
                                         const Communicator& communicator, Vector atom_flags)
    : samples_(samples.transpose()),
      conditioning_dimensions_(conditioning_dimensions),
      kernels_(std::move(kernels)),
      held_out_(std::move(held_out)),
      sample_weights_(std::move(sample_weights)),
      atom_flags_(std::move(atom_flags)),
      n_samples_(communicator.sum_counts(samples.cols())),
      threads_(resolve_threads(threads)),
      communicator_(communicator) {
  if (n_samples_ < 2) {
    throw InvalidArgument("leave-one-out likelihood needs at least 2 samples");
  }
  if (conditioning_dimensions_ < 0 || conditioning_dimensions_ >= samples_.cols()) {
    throw InvalidArgument("the conditioning dimensions must leave at least one dimension");
  }
  if (kernels_.empty()) kernels_.resize(static_cast<std::size_t>(samples_.cols()));
  if (static_cast<Index>(kernels_.size()) != samples_.cols()) {
    throw InvalidArgument("the leave-one-out likelihood needs one kernel per dimension");
  }
  // What only this rank's samples can show fails on every rank.
  agree_on_errors(communicator_, [&] {
    if (sample_weights_.size() > 0) {
      validate_sample_weights(sample_weights_, samples_.rows(), "leave-one-out sample weights");
      if ((sample_weights_.array() == 0.0).any()) {
        throw InvalidArgument("leave-one-out sample weights must be positive");
      }
    }
    for (Index d = 0; d < samples_.cols(); ++d) {
      const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
      if (!kernel.is_discrete()) continue;
      for (Index i = 0; i < samples_.rows(); ++i) {
        const Index level = kernel.level_index(samples_(i, d));
        if (level < 0) {
          throw InvalidArgument("a sample of discrete dimension " + std::to_string(d) +
                                " is none of its kernel's levels");
        }
        samples_(i, d) = static_cast<double>(level);
      }
    }
  });
  for (Index d = conditioning_dimensions_; d < samples_.cols(); ++d) {
    if (kernels_[static_cast<std::size_t>(d)].kind() == ColumnKind::ordered) symmetric_ = false;
  }
  // Whether any rank has an atom (a rank without samples passes no flags).
  double atom = atom_flags_.size() > 0 ? 1.0 : 0.0;
  communicator_.allreduce_max(&atom, 1);
  if (atom > 0.0) {
    agree_on_errors(communicator_, [&] {
      if (atom_flags_.size() != samples_.rows() ||
          !(atom_flags_.array() == 0.0 || atom_flags_.array() == 1.0).all()) {
        throw InvalidArgument("the atom flags must be 0 or 1, one per sample");
      }
      if (samples_.cols() - conditioning_dimensions_ != 1 || kernels_.back().is_discrete()) {
        throw InvalidArgument("an atom needs one continuous output");
      }
    });
    double counts[2] = {atom_flags_.sum(), static_cast<double>(samples_.rows())};
    communicator_.allreduce_sum(counts, 2);
    if (counts[0] < 2.0 || counts[1] - counts[0] < 2.0) {
      throw InvalidArgument(
          "leave-one-out likelihood with an atom needs at least 2 samples at it "
          "and 2 beside it");
    }
  }
  // Whether any rank has sample weights: a rank without samples passes none.
  double weighted = sample_weights_.size() > 0 ? 1.0 : 0.0;
  communicator_.allreduce_max(&weighted, 1);
  if (weighted > 0.0) {
    double totals[2] = {sample_weights_.sum(), sample_weights_.squaredNorm()};
    communicator_.allreduce_sum(totals, 2);
    total_weight_ = totals[0];
    total_squared_weight_ = totals[1];
  }
  every_sample_held_out_ = held_out_.empty();
  if (every_sample_held_out_) {
    held_out_.resize(static_cast<std::size_t>(n_samples_));
    std::iota(held_out_.begin(), held_out_.end(), Index{0});
  }
  for (const Index i : held_out_) {
    if (i < 0 || i >= n_samples_) throw InvalidArgument("held-out sample out of range");
  }
  const Index first = communicator_.sum_counts_below(samples_.rows());
  for (const Index i : held_out_) {
    held_out_rows_.push_back(i >= first && i < first + samples_.rows() ? i - first : -1);
  }
  if (communicator_.size() == 1) {
    if (weighted > 0.0) held_out_weights_ = sample_weights_(held_out_);
    if (atom > 0.0) held_out_atom_flags_ = atom_flags_(held_out_);
    return;
  }
  // Every rank receives the held-out samples (and their weights and atom flags) from the ranks
  // that hold them.
  const Index weight_row = samples_.cols();
  const Index atom_row = weight_row + (weighted > 0.0 ? 1 : 0);
  Matrix local(atom_row + (atom > 0.0 ? 1 : 0), samples_.rows());
  local.topRows(samples_.cols()) = samples_.transpose();
  if (weighted > 0.0) local.row(weight_row) = sample_weights_.transpose();
  if (atom > 0.0) local.row(atom_row) = atom_flags_.transpose();
  const Matrix gathered = gather_global_samples(local, first, held_out_, communicator_);
  held_out_samples_ = gathered.topRows(samples_.cols()).transpose();
  if (weighted > 0.0) held_out_weights_ = gathered.row(weight_row).transpose();
  if (atom > 0.0) held_out_atom_flags_ = gathered.row(atom_row).transpose();
}

double BandwidthLikelihood::held_out_atom_flag(Index r) const {
  return held_out_atom_flags_.size() > 0 ? held_out_atom_flags_(r) : -1.0;
}

double BandwidthLikelihood::effective_samples() const {
  return held_out_weights_.size() > 0 ? total_weight_ * total_weight_ / total_squared_weight_
                                      : static_cast<double>(n_samples_);
}

Vector BandwidthLikelihood::held_out_weights() const { return held_out_weights_; }

double BandwidthLikelihood::log_others_weight(Index r) const {
  if (held_out_weights_.size() == 0) return std::log(static_cast<double>(n_samples_ - 1));
  return std::log(total_weight_ - held_out_weights_(r));
}

Vector BandwidthLikelihood::held_out_mean(const Matrix& values) const {
  if (held_out_weights_.size() == 0) return values.colwise().mean().transpose();
  return values.transpose() * held_out_weights_ / held_out_weights_.sum();
}

std::pair<const Matrix*, Index> BandwidthLikelihood::held_out_point(const Evaluation& evaluation,
                                                                    Index r) const {
  if (communicator_.size() == 1) {
    return {&evaluation.scaled, held_out_[static_cast<std::size_t>(r)]};
  }
  return {&evaluation.scaled_held_out, r};
}

void BandwidthLikelihood::evaluate_relative_to_largest(const Evaluation& evaluation,
                                                       const std::vector<Index>& rows,
                                                       double* terms, Matrix* gradient_rows) const {
  if (rows.empty()) return;  // the same on every rank: the records were summed
  const Index n = evaluation.scaled.rows();
  const Index k = evaluation.scaled.cols();
  const Index c = conditioning_dimensions_;
  const auto count = static_cast<Index>(rows.size());
  const bool moments = gradient_rows != nullptr;
  // The negated smallest squared distances of each sum over this rank's samples, then over all.
  Matrix largest = Matrix::Constant(2, count, -INFINITY);
  parallel_for(threads_, count, [&](Index q) {
    const Index r = rows[static_cast<std::size_t>(q)];
    const auto [points, point] = held_out_point(evaluation, r);
    Chunk chunk(k);
    double joint_smallest = INFINITY;
    double conditioning_smallest = INFINITY;
    for (Index start = 0; start < n; start += kChunk) {
      const Index length = std::min(kChunk, n - start);
      fill_distances(evaluation, c, *points, point, held_out_rows_[static_cast<std::size_t>(r)],
                     held_out_atom_flag(r), start, length, moments, chunk);
      joint_smallest = std::min(joint_smallest, chunk.joint.head(length).minCoeff());
      if (c > 0) {
        conditioning_smallest =
            std::min(conditioning_smallest, chunk.conditioning.head(length).minCoeff());
      }
    }
    largest(0, q) = -joint_smallest;
    largest(1, q) = -conditioning_smallest;
  });
  communicator_.allreduce_max(largest.data(), static_cast<std::size_t>(largest.size()));
  const Matrix shifts = -largest;
  Matrix records = Matrix::Zero(record_size(k, c), count);
  parallel_for(threads_, count, [&](Index q) {
    const Index r = rows[static_cast<std::size_t>(q)];
    const auto [points, point] = held_out_point(evaluation, r);
    Chunk chunk(k);
    for (Index start = 0; start < n; start += kChunk) {
      const Index length = std::min(kChunk, n - start);
      fill_distances(evaluation, c, *points, point, held_out_rows_[static_cast<std::size_t>(r)],
                     held_out_atom_flag(r), start, length, moments, chunk);
      to_kernel_values(chunk, c, length, shifts(0, q), shifts(1, q));
      add_to_row(chunk, evaluation.discrete, c, length, moments, records.col(q).data());
    }
  });
  communicator_.allreduce_sum(records.data(), static_cast<std::size_t>(records.size()));
  parallel_for(threads_, count, [&](Index q) {
    const Index r = rows[static_cast<std::size_t>(q)];
    finish_row(records.col(q).data(), evaluation.discrete, log_others_weight(r), k, c, shifts(0, q),
               shifts(1, q), held_out_atom_flag(r) == 1.0, terms[r], gradient_rows, r);
  });
}

void BandwidthLikelihood::finish_records(const Evaluation& evaluation, const Matrix& records,
                                         double* terms, Matrix* gradient_rows) const {
  const Index k = evaluation.scaled.cols();
  const Index c = conditioning_dimensions_;
  const Index m = n_held_out();
  parallel_for(threads_, (m + kHeldOutBlock - 1) / kHeldOutBlock, [&](Index b) {
    for (Index r = b * kHeldOutBlock; r < std::min(m, (b + 1) * kHeldOutBlock); ++r) {
      if (records(0, r) >= std::exp(kPlainFloor)) {
        finish_row(records.col(r).data(), evaluation.discrete, log_others_weight(r), k, c, 0.0, 0.0,
                   held_out_atom_flag(r) == 1.0, terms[r], gradient_rows, r);
      }
    }
  });
  std::vector<Index> underflowed;
  for (Index r = 0; r < m; ++r) {
    if (!(records(0, r) >= std::exp(kPlainFloor))) underflowed.push_back(r);
  }
  evaluate_relative_to_largest(evaluation, underflowed, terms, gradient_rows);
}

Matrix BandwidthLikelihood::held_out_records(const Evaluation& evaluation, bool moments) const {
  const Index n = evaluation.scaled.rows();
  const Index k = evaluation.scaled.cols();
  const Index c = conditioning_dimensions_;
  const Index m = n_held_out();
  Matrix records = Matrix::Zero(record_size(k, c), m);
  parallel_for(threads_, (m + kHeldOutBlock - 1) / kHeldOutBlock, [&](Index b) {
    const Index first = b * kHeldOutBlock;
    const Index last = std::min(m, first + kHeldOutBlock);
    Chunk chunk(k);
    // The block's held-out samples meet each chunk of reference samples in turn, so a chunk is
    // read from memory once per block rather than once per held-out sample (at large n the
    // samples outgrow the caches).
    for (Index start = 0; start < n; start += kChunk) {
      const Index length = std::min(kChunk, n - start);
      for (Index r = first; r < last; ++r) {
        const auto [points, point] = held_out_point(evaluation, r);
        fill_distances(evaluation, c, *points, point, held_out_rows_[static_cast<std::size_t>(r)],
                       held_out_atom_flag(r), start, length, moments, chunk);
        to_kernel_values(chunk, c, length, 0.0, 0.0);
        add_to_row(chunk, evaluation.discrete, c, length, moments, records.col(r).data());
      }
    }
  });
  communicator_.allreduce_sum(records.data(), static_cast<std::size_t>(records.size()));
  return records;
}

Matrix BandwidthLikelihood::every_pair_records(const Evaluation& evaluation, bool moments) const {
  // Each unordered pair {i, j} is visited once, from the smaller index: its kernel values go to
  // the record of i (row side) and of j (column side). Task b owns the rows [begin_b, end_b) and
  // keeps the column sides of every j ≥ begin_b in a buffer of its own; the buffers are added
  // in task order, so the sums do not depend on the thread count.
  const Index n = evaluation.scaled.rows();
  const Index k = evaluation.scaled.cols();
  const Index c = conditioning_dimensions_;
  const Index width = record_size(k, c);
  const Index tasks = std::min<Index>(64, n);
  // Rows per task shrink along the triangle so that tasks cost about the same.
  std::vector<Index> begins(static_cast<std::size_t>(tasks) + 1);
  for (Index b = 0; b <= tasks; ++b) {
    const double share = static_cast<double>(b) / static_cast<double>(tasks);
    begins[static_cast<std::size_t>(b)] =
        static_cast<Index>(std::round(static_cast<double>(n) * (1.0 - std::sqrt(1.0 - share))));
  }
  Matrix rows = Matrix::Zero(width, n);  // the row side of every sample's record
  std::vector<Matrix> columns(static_cast<std::size_t>(tasks));
  parallel_for(threads_, tasks, [&](Index b) {
    const Index begin = begins[static_cast<std::size_t>(b)];
    const Index end = begins[static_cast<std::size_t>(b) + 1];
    Matrix& column_side = columns[static_cast<std::size_t>(b)];
    column_side = Matrix::Zero(n - begin, width);
    Chunk chunk(k);
    for (Index i = begin; i < end; ++i) {
      for (Index start = i + 1; start < n; start += kChunk) {
        const Index length = std::min(kChunk, n - start);
        fill_distances(evaluation, c, evaluation.scaled, i, i,
                       atom_flags_.size() > 0 ? atom_flags_(i) : -1.0, start, length, moments,
                       chunk);
        to_kernel_values(chunk, c, length, 0.0, 0.0);
        add_to_row(chunk, evaluation.discrete, c, length, moments, rows.col(i).data());
        add_to_columns(chunk, evaluation.discrete, c, length, moments, column_side, start - begin);
      }
    }
  });
  for (Index b = 0; b < tasks; ++b) {
    const Index begin = begins[static_cast<std::size_t>(b)];
    rows.rightCols(n - begin) += columns[static_cast<std::size_t>(b)].transpose();
  }
  return rows;
}

Vector BandwidthLikelihood::evaluate(const VectorView& parameters, Matrix* gradient_rows) const {
  const Index k = dimension();
  if (parameters.size() != k || !parameters.allFinite()) {
    throw InvalidArgument("one finite parameter per dimension is needed");
  }
  const Index c = conditioning_dimensions_;
  Evaluation evaluation;
  evaluation.twice_negative_log.resize(static_cast<std::size_t>(k));
  evaluation.derivatives.resize(static_cast<std::size_t>(k));
  Vector inverse = Vector::Ones(k);
  // Σ over the continuous outputs of log(√(2π) h_d); a discrete output is a probability mass.
  double output_log_bandwidths = 0.0;
  Index continuous_outputs = 0;
  for (Index d = 0; d < k; ++d) {
    const auto position = static_cast<std::size_t>(d);
    const ColumnKernel& kernel = kernels_[position];
    evaluation.discrete.push_back(kernel.is_discrete());
    if (!kernel.is_discrete()) {
      inverse(d) = std::exp(-parameters(d));
      if (d >= c) {
        output_log_bandwidths += parameters(d);
        ++continuous_outputs;
      }
      continue;
    }
    // Transposed, so that the values seen from one held-out level are contiguous.
    ColumnKernelTable table = kernel.table_at_parameter(parameters(d), d >= c);
    evaluation.twice_negative_log[position] = -2.0 * table.log_values.transpose();
    if (gradient_rows != nullptr) evaluation.derivatives[position] = table.derivatives.transpose();
  }
  evaluation.scaled = samples_ * inverse.asDiagonal();
  if (held_out_samples_.size() > 0) {
    evaluation.scaled_held_out = held_out_samples_ * inverse.asDiagonal();
  }
  if (sample_weights_.size() > 0) {
    evaluation.log_weight_offsets = -2.0 * sample_weights_.array().log().matrix();
  }
  if (atom_flags_.size() > 0) evaluation.atom_flags = &atom_flags_;
  const Index m = n_held_out();
  Vector terms(m);
  if (gradient_rows != nullptr) gradient_rows->resize(m, k);
  // An ordered output's kernel is divided by a sum that depends on the centre: no longer
  // symmetric, so every held-out sample is then taken against all others; so it is where the
  // samples are spread over several ranks.
  const bool moments = gradient_rows != nullptr;
  const bool pairwise = every_sample_held_out_ && symmetric_ && held_out_weights_.size() == 0 &&
                        communicator_.size() == 1;
  finish_records(
      evaluation,
      pairwise ? every_pair_records(evaluation, moments) : held_out_records(evaluation, moments),
      terms.data(), gradient_rows);
  // The normalising constants of the continuous outputs' kernels: none at the atom, where p̂_{−i}
  // is a probability.
  const double normaliser =
      output_log_bandwidths + 0.5 * static_cast<double>(continuous_outputs) * kLog2Pi;
  for (Index r = 0; r < m; ++r) {
    if (held_out_atom_flag(r) != 1.0) terms(r) += normaliser;
  }
  return terms;
}

Vector BandwidthLikelihood::negative_log_likelihoods(const VectorView& parameters) const {
  return evaluate(parameters, nullptr);
}

double BandwidthLikelihood::mean_negative_log_likelihood(const VectorView& parameters,
                                                         Vector* gradient, Vector* terms) const {
  Matrix gradient_rows;
  Vector values = evaluate(parameters, gradient != nullptr ? &gradient_rows : nullptr);
  if (gradient != nullptr) *gradient = held_out_mean(gradient_rows);
  const double mean = held_out_weights_.size() == 0 ? values.mean() : held_out_mean(values)(0);
  if (terms != nullptr) *terms = std::move(values);
  return mean;
}

Vector BandwidthLikelihood::smoothing_of(const VectorView& parameters) const {
  Vector smoothing(parameters.size());
  for (Index d = 0; d < parameters.size(); ++d) {
    const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
    smoothing(d) =
        kernel.is_discrete() ? kernel.smoothing_of(parameters(d)) : std::exp(parameters(d));
  }
  return smoothing;
}

Vector BandwidthLikelihood::parameters_of(const VectorView& smoothing) const {
  Vector parameters(smoothing.size());
  for (Index d = 0; d < smoothing.size(); ++d) {
    const ColumnKernel& kernel = kernels_[static_cast<std::size_t>(d)];
    parameters(d) =
        kernel.is_discrete() ? kernel.parameter_of(smoothing(d)) : std::log(smoothing(d));
  }
  return parameters;
}

}  // namespace cdens

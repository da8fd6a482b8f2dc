#include "cdens/core/bandwidth_likelihood.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cdens/core/error.hpp"
#include "cdens/core/log_space.hpp"
#include "cdens/core/parallel.hpp"

namespace cdens {
namespace {

constexpr double kLogSqrtTwoPi = 0.91893853320467274178;
/// Held-out samples per parallel task: enough to amortise the scratch buffers, small enough to
/// balance two threads at n = 300.
constexpr Index kBlock = 16;
/// Reference samples handled together: every array of a chunk stays in the L1 cache while the
/// chunk's dimensions are added up.
constexpr Index kChunk = 256;

/// values = exp(−½ (q − smallest)), with terms below e^kLogSmallestNormal (relative to the
/// largest) set to zero, which keeps subnormal numbers out of the sums; an infinite q gives zero.
/// The exponentials are taken first and flushed after (as exp_flushing_below_in_place does), so
/// that both steps vectorise.
template <class Squared, class Values>
void relative_kernel_values(const Squared& q, double smallest, Values&& values) {
  static const double tiny = std::exp(kLogSmallestNormal);
  values = (-0.5 * (q - smallest)).exp();
  double* data = values.data();
  for (Index j = 0; j < values.size(); ++j) data[j] = data[j] < tiny ? 0.0 : data[j];
}

}  // namespace

BandwidthLikelihood::BandwidthLikelihood(const MatrixView& samples,
                                         Index conditioning_dimensions,
                                         std::vector<Index> held_out, int threads)
    : samples_(samples.transpose()),
      conditioning_dimensions_(conditioning_dimensions),
      held_out_(std::move(held_out)),
      threads_(resolve_threads(threads)) {
  if (samples_.rows() < 2) {
    throw InvalidArgument("leave-one-out likelihood needs at least 2 samples");
  }
  if (conditioning_dimensions_ < 0 || conditioning_dimensions_ >= samples_.cols()) {
    throw InvalidArgument("the conditioning dimensions must leave at least one dimension");
  }
  if (held_out_.empty()) {
    held_out_.resize(static_cast<std::size_t>(samples_.rows()));
    std::iota(held_out_.begin(), held_out_.end(), Index{0});
  }
  for (const Index i : held_out_) {
    if (i < 0 || i >= samples_.rows()) throw InvalidArgument("held-out sample out of range");
  }
}

void BandwidthLikelihood::evaluate_block(const Matrix& scaled, Index begin, Index size,
                                         double* terms, Matrix* gradient_rows) const {
  const Index n = scaled.rows();
  const Index k = scaled.cols();
  const Index c = conditioning_dimensions_;
  // Squared scaled distances from the held-out sample to every sample: over all dimensions
  // (joint) and over the conditioning ones.
  Eigen::ArrayXd joint(n);
  Eigen::ArrayXd conditioning(c > 0 ? n : 0);
  Eigen::ArrayXd squared(kChunk);
  Eigen::ArrayXd joint_values(kChunk);
  Eigen::ArrayXd conditioning_values(kChunk);
  Vector joint_moments(k);
  Vector conditioning_moments(c);
  for (Index r = begin; r < begin + size; ++r) {
    const Index i = held_out_[static_cast<std::size_t>(r)];
    // Pass 1: the distances, and the smallest of each kind over j ≠ i (the sums are taken
    // relative to their largest term).
    double joint_smallest = INFINITY;
    double conditioning_smallest = INFINITY;
    for (Index start = 0; start < n; start += kChunk) {
      const Index length = std::min(kChunk, n - start);
      auto joint_chunk = joint.segment(start, length);
      joint_chunk.setZero();
      for (Index d = 0; d < k; ++d) {
        if (c > 0 && d == c) conditioning.segment(start, length) = joint_chunk;
        joint_chunk += (scaled.col(d).segment(start, length).array() - scaled(i, d)).square();
      }
      if (i >= start && i < start + length) {
        joint(i) = INFINITY;
        if (c > 0) conditioning(i) = INFINITY;
      }
      joint_smallest = std::min(joint_smallest, joint_chunk.minCoeff());
      if (c > 0) {
        conditioning_smallest =
            std::min(conditioning_smallest, conditioning.segment(start, length).minCoeff());
      }
    }
    // Pass 2: the kernel values relative to the largest, their sums and, for the gradient,
    // their moments Σ_j w_ij (z_id − z_jd)² / h_d².
    double joint_sum = 0.0;
    double conditioning_sum = 0.0;
    joint_moments.setZero();
    conditioning_moments.setZero();
    for (Index start = 0; start < n; start += kChunk) {
      const Index length = std::min(kChunk, n - start);
      auto joint_chunk = joint_values.head(length);
      auto conditioning_chunk = conditioning_values.head(length);
      relative_kernel_values(joint.segment(start, length), joint_smallest, joint_chunk);
      joint_sum += joint_chunk.sum();
      if (c > 0) {
        relative_kernel_values(conditioning.segment(start, length), conditioning_smallest,
                               conditioning_chunk);
        conditioning_sum += conditioning_chunk.sum();
      }
      if (gradient_rows == nullptr) continue;
      for (Index d = 0; d < k; ++d) {
        auto chunk_squared = squared.head(length);
        chunk_squared = (scaled.col(d).segment(start, length).array() - scaled(i, d)).square();
        joint_moments(d) += (joint_chunk * chunk_squared).sum();
        if (d < c) conditioning_moments(d) += (conditioning_chunk * chunk_squared).sum();
      }
    }
    const double joint_log_sum = -0.5 * joint_smallest + std::log(joint_sum);
    const double conditioning_log_sum =
        c > 0 ? -0.5 * conditioning_smallest + std::log(conditioning_sum)
              : std::log(static_cast<double>(n - 1));
    terms[r] = conditioning_log_sum - joint_log_sum;
    if (gradient_rows != nullptr) {
      auto row = gradient_rows->row(r);
      row = -joint_moments.transpose() / joint_sum;
      if (c > 0) row.head(c) += conditioning_moments.transpose() / conditioning_sum;
      row.tail(k - c).array() += 1.0;
    }
  }
}

Vector BandwidthLikelihood::evaluate(const VectorView& log_bandwidths,
                                     Matrix* gradient_rows) const {
  const Index k = dimension();
  if (log_bandwidths.size() != k || !log_bandwidths.allFinite()) {
    throw InvalidArgument("one finite log-bandwidth per dimension is needed");
  }
  const Vector inverse = (-log_bandwidths.array()).exp().matrix();
  const Matrix scaled = samples_ * inverse.asDiagonal();
  const Index m = n_held_out();
  Vector terms(m);
  if (gradient_rows != nullptr) gradient_rows->resize(m, k);
  parallel_for(threads_, (m + kBlock - 1) / kBlock, [&](Index b) {
    const Index begin = b * kBlock;
    evaluate_block(scaled, begin, std::min(kBlock, m - begin), terms.data(), gradient_rows);
  });
  const Index c = conditioning_dimensions_;
  terms.array() +=
      log_bandwidths.tail(k - c).sum() + static_cast<double>(k - c) * kLogSqrtTwoPi;
  return terms;
}

Vector BandwidthLikelihood::negative_log_likelihoods(const VectorView& log_bandwidths) const {
  return evaluate(log_bandwidths, nullptr);
}

double BandwidthLikelihood::mean_negative_log_likelihood(const VectorView& log_bandwidths,
                                                         Vector* gradient) const {
  if (gradient == nullptr) return evaluate(log_bandwidths, nullptr).mean();
  Matrix gradient_rows;
  const double value = evaluate(log_bandwidths, &gradient_rows).mean();
  *gradient = gradient_rows.colwise().mean().transpose();
  return value;
}

}  // namespace cdens

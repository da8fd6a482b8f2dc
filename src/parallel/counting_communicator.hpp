#pragma once
// A communicator that counts what a fit sends between processes: the measured side of the
// scaling model of docs/distributed.md (which predicts the bytes from b, the σ grid and the
// folds).

#include <cstdint>

#include "cdens/core/communicator.hpp"

namespace cdens {

/// Passes every collective call on to `inner` and adds up the payload of the calls on this rank:
/// the bytes of the buffers each call reads or fills here (the values reduced or broadcast, the
/// counts, the gathered and scattered values, the error text). What MPI adds on its own — headers,
/// the forwarding of a tree or a ring — is not counted.
class CountingCommunicator final : public Communicator {
 public:
  explicit CountingCommunicator(const Communicator& inner) : inner_(inner) {}

  /// Bytes of payload so far, and the collective calls that carried them.
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t calls() const { return calls_; }

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void allreduce_sum(double* data, std::size_t count) const override;
  void allreduce_max(double* data, std::size_t count) const override;
  void broadcast(double* data, std::size_t count, int root) const override;
  std::int64_t sum_counts(std::int64_t value) const override;
  std::int64_t sum_counts_below(std::int64_t value) const override;
  std::vector<double> gather_all(const std::vector<double>& local) const override;
  std::vector<std::int32_t> scatter_from_root(const std::vector<std::int32_t>& root_values,
                                              std::int64_t local_count) const override;
  std::optional<RankError> first_error(const std::optional<RankError>& local) const override;

 private:
  void count(std::size_t bytes) const {
    bytes_ += bytes;
    ++calls_;
  }

  const Communicator& inner_;
  // Collective calls come from one thread (communicator.hpp), so plain counters do.
  mutable std::uint64_t bytes_ = 0;
  mutable std::uint64_t calls_ = 0;
};

}  // namespace cdens

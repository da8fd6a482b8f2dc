#pragma once
// Sums of sufficient statistics across processes. Each rank holds a shard of the rows; an
// estimator adds up its per-row statistics (LSCDE's Ĥ and ĥ, GMM responsibilities, …) locally
// and then calls allreduce_sum. The single-process implementation does nothing; the MPI one
// (built with CDENS_WITH_MPI) wraps MPI_Allreduce.

#include <cstddef>

namespace cdens {

class Communicator {
 public:
  virtual ~Communicator() = default;
  /// This process's rank, 0 … size() − 1.
  virtual int rank() const = 0;
  /// Number of processes sharing the work.
  virtual int size() const = 0;
  /// Replaces data[0 … count) on every rank by its sum over all ranks.
  virtual void allreduce_sum(double* data, std::size_t count) const = 0;
  /// Copies data[0 … count) of rank `root` to every rank.
  virtual void broadcast(double* data, std::size_t count, int root) const = 0;
};

/// One process: sums and broadcasts are the identity.
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(double*, std::size_t) const override {}
  void broadcast(double*, std::size_t, int) const override {}
};

/// A process-wide LocalCommunicator, the default for every fit.
const Communicator& local_communicator();

}  // namespace cdens

#pragma once
// The Communicator of a fit called from Python with `comm=`: every collective call goes through
// an mpi4py communicator (python3-mpi4py), so the extension itself needs no MPI library and a
// script run under `mpirun -n K python3 script.py` fits one model from the rows of all K
// processes (docs/distributed.md).

#include <pybind11/pybind11.h>

#include <memory>

#include "cdens/core/communicator.hpp"

namespace cdens::python {

/// A Communicator over a duplicate of an mpi4py communicator (so the fit's collectives never
/// meet the script's own), freed with it. Its members take the GIL: a fit calls them from the
/// thread that called it, with the GIL released around the computation. Every rank must create
/// it at the same point (duplicating a communicator is a collective call).
class PythonCommunicator final : public Communicator {
 public:
  /// TypeError unless `comm` is an mpi4py communicator (has Dup, Get_rank, Get_size).
  explicit PythonCommunicator(const pybind11::object& comm);
  ~PythonCommunicator() override;
  PythonCommunicator(const PythonCommunicator&) = delete;
  PythonCommunicator& operator=(const PythonCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
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
  pybind11::object comm_;  ///< the duplicate
  pybind11::object mpi_;   ///< the mpi4py.MPI module (its operations SUM, MAX, MIN)
  int rank_ = 0;
  int size_ = 1;
};

/// The communicator a fit runs on: nullptr for `comm` None (the process alone).
std::unique_ptr<Communicator> communicator_of(const pybind11::object& comm);

}  // namespace cdens::python

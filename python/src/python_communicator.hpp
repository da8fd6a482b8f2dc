#pragma once
// The Communicator of a fit called from Python with `comm=`: every collective call goes to a
// Python object that speaks the collective protocol of cdens._collectives — an adapter over an
// mpi4py communicator (a script under `mpirun`) or the sockets that join the tasks of a fit on a
// Dask cluster. The extension itself needs no MPI library; both transports run the same fits
// (docs/distributed.md).

#include <pybind11/pybind11.h>

#include <memory>

#include "cdens/core/communicator.hpp"

namespace cdens::python {

/// A Communicator whose collectives call a Python object with the members `rank`, `size`
/// (ints) and `sum(values)`, `max(values)` (a float64 array: its sum or largest value over all
/// processes, element by element, the same bits on every process), `broadcast(values, root)`,
/// `allgather(value)` (every process's value, a list in rank order), `gather_to_root(value)`
/// (that list on rank 0, None elsewhere) and `scatter_from_root(parts)` (rank 0's list: each
/// process receives its entry). Its members take the GIL: a fit calls them from the thread that
/// called it, with the GIL released around the computation.
class PythonCommunicator final : public Communicator {
 public:
  /// TypeError unless `collective` has every member of the protocol.
  explicit PythonCommunicator(pybind11::object collective);
  ~PythonCommunicator() override = default;
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
  /// Every rank's count, in rank order.
  std::vector<std::int64_t> all_counts(std::int64_t value) const;
  /// data[0 … count) replaced by the array that `result` (a call of the protocol on a view of
  /// data) returns; `what` names the call in an error.
  template <typename Call>
  void replace_by(const char* what, double* data, std::size_t count, Call&& result) const;

  pybind11::object collective_;
  int rank_ = 0;
  int size_ = 1;
};

/// The communicator a fit runs on: nullptr for `collective` None (the process alone).
std::unique_ptr<Communicator> communicator_of(const pybind11::object& collective);

}  // namespace cdens::python

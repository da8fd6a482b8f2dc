#include "python_communicator.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <string>

#include "cdens/core/error.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// A numpy array over data[0 … count), owned by the caller (no copy).
py::array_t<double> view_of(double* data, std::size_t count) {
  const py::capsule caller_owns(data, [](void*) {});
  return py::array_t<double>({static_cast<py::ssize_t>(count)}, data, caller_owns);
}

/// Runs one collective call; a Python error in it (mpi4py's) becomes a cdens Error.
template <typename Call>
auto collective(const char* what, Call&& call) {
  try {
    return std::forward<Call>(call)();
  } catch (py::error_already_set& error) {
    throw Error(std::string("the ") + what + " between processes failed: " + error.what());
  }
}

}  // namespace

PythonCommunicator::PythonCommunicator(const py::object& comm) {
  for (const char* method : {"Dup", "Get_rank", "Get_size", "Reduce", "Bcast"}) {
    if (!py::hasattr(comm, method)) {
      throw py::type_error("comm must be an mpi4py communicator (such as MPI.COMM_WORLD), got " +
                           py::repr(comm).cast<std::string>());
    }
  }
  mpi_ = py::module_::import("mpi4py.MPI");
  comm_ = collective("duplication of the communicator", [&] { return comm.attr("Dup")(); });
  rank_ = comm_.attr("Get_rank")().cast<int>();
  size_ = comm_.attr("Get_size")().cast<int>();
}

PythonCommunicator::~PythonCommunicator() {
  py::gil_scoped_acquire gil;
  try {
    comm_.attr("Free")();
  } catch (py::error_already_set& error) {
    error.discard_as_unraisable("cdens: freeing the fit's communicator");
  }
}

void PythonCommunicator::allreduce_sum(double* data, std::size_t count) const {
  py::gil_scoped_acquire gil;
  // A reduction to rank 0, then a broadcast of its result: the same bits on every rank, as the
  // MPI communicator of the command line gives (src/core/mpi_session.cpp says why).
  py::array_t<double> total(static_cast<py::ssize_t>(count));
  collective("sum", [&] {
    comm_.attr("Reduce")(view_of(data, count), total, mpi_.attr("SUM"), 0);
    comm_.attr("Bcast")(total, 0);
  });
  std::copy(total.data(), total.data() + count, data);
}

void PythonCommunicator::allreduce_max(double* data, std::size_t count) const {
  py::gil_scoped_acquire gil;
  py::array_t<double> largest(static_cast<py::ssize_t>(count));
  collective("maximum",
             [&] { comm_.attr("Allreduce")(view_of(data, count), largest, mpi_.attr("MAX")); });
  std::copy(largest.data(), largest.data() + count, data);
}

void PythonCommunicator::broadcast(double* data, std::size_t count, int root) const {
  py::gil_scoped_acquire gil;
  collective("broadcast", [&] { comm_.attr("Bcast")(view_of(data, count), root); });
}

std::int64_t PythonCommunicator::sum_counts(std::int64_t value) const {
  py::gil_scoped_acquire gil;
  return collective("count", [&] {
    return comm_.attr("allreduce")(py::int_(value), mpi_.attr("SUM")).cast<std::int64_t>();
  });
}

std::int64_t PythonCommunicator::sum_counts_below(std::int64_t value) const {
  py::gil_scoped_acquire gil;
  const py::object below =
      collective("count", [&] { return comm_.attr("exscan")(py::int_(value), mpi_.attr("SUM")); });
  // MPI leaves rank 0's exclusive scan undefined; mpi4py gives None.
  return rank_ == 0 || below.is_none() ? 0 : below.cast<std::int64_t>();
}

std::vector<double> PythonCommunicator::gather_all(const std::vector<double>& local) const {
  py::gil_scoped_acquire gil;
  const py::list parts = collective("gather", [&] {
    return py::list(comm_.attr("allgather")(
        py::array_t<double>(static_cast<py::ssize_t>(local.size()), local.data())));
  });
  std::vector<double> all;
  for (const py::handle part : parts) {
    const auto values = part.cast<py::array_t<double>>();
    all.insert(all.end(), values.data(), values.data() + values.size());
  }
  return all;
}

std::vector<std::int32_t> PythonCommunicator::scatter_from_root(
    const std::vector<std::int32_t>& root_values, std::int64_t local_count) const {
  py::gil_scoped_acquire gil;
  const py::object counts =
      collective("gather", [&] { return comm_.attr("gather")(py::int_(local_count), 0); });
  py::object parts = py::none();
  if (rank_ == 0) {
    py::list split;
    std::size_t offset = 0;
    for (const py::handle count : counts) {
      const auto length = count.cast<std::size_t>();
      if (offset + length > root_values.size()) break;
      split.append(
          py::array_t<std::int32_t>(static_cast<py::ssize_t>(length), root_values.data() + offset));
      offset += length;
    }
    if (offset != root_values.size() || split.size() != static_cast<std::size_t>(size_)) {
      // Every rank would wait for data that never comes; the caller's counts disagree.
      throw InvalidArgument("scatter_from_root: the ranks' counts do not add up to rank 0's");
    }
    parts = split;
  }
  const auto mine = collective(
      "scatter", [&] { return comm_.attr("scatter")(parts, 0).cast<py::array_t<std::int32_t>>(); });
  return {mine.data(), mine.data() + mine.size()};
}

std::optional<RankError> PythonCommunicator::first_error(
    const std::optional<RankError>& local) const {
  py::gil_scoped_acquire gil;
  const py::object mine =
      local ? py::object(py::make_tuple(local->type, local->message)) : py::object(py::none());
  const py::list errors =
      collective("exchange of errors", [&] { return py::list(comm_.attr("allgather")(mine)); });
  for (const py::handle error : errors) {
    if (!error.is_none()) {
      const auto pair = error.cast<py::tuple>();
      return RankError{pair[0].cast<std::string>(), pair[1].cast<std::string>()};
    }
  }
  return std::nullopt;
}

std::unique_ptr<Communicator> communicator_of(const py::object& comm) {
  if (comm.is_none()) return nullptr;
  return std::make_unique<PythonCommunicator>(comm);
}

}  // namespace cdens::python

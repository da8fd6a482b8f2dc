#include "python_communicator.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "cdens/core/types.hpp"

namespace py = pybind11;

namespace cdens::python {
namespace {

/// A numpy array over data[0 … count), owned by the caller (no copy).
py::array_t<double> view_of(double* data, std::size_t count) {
  const py::capsule caller_owns(data, [](void*) {});
  return py::array_t<double>({static_cast<py::ssize_t>(count)}, data, caller_owns);
}

/// Runs one collective call; a Python error in it (of the transport) becomes a cdens Error.
template <typename Call>
auto collective(const char* what, Call&& call) {
  try {
    return std::forward<Call>(call)();
  } catch (py::error_already_set& error) {
    throw Error(std::string("the ") + what + " between processes failed: " + error.what());
  }
}

}  // namespace

PythonCommunicator::PythonCommunicator(py::object collective) : collective_(std::move(collective)) {
  for (const char* member : {"rank", "size", "sum", "max", "broadcast", "allgather",
                             "gather_to_root", "scatter_from_root"}) {
    if (!py::hasattr(collective_, member)) {
      throw py::type_error(
          "comm must be a collective of cdens._collectives (the fit makes one "
          "of an mpi4py communicator), got " +
          py::repr(collective_).cast<std::string>());
    }
  }
  rank_ = collective_.attr("rank").cast<int>();
  size_ = collective_.attr("size").cast<int>();
}

template <typename Call>
void PythonCommunicator::replace_by(const char* what, double* data, std::size_t count,
                                    Call&& result) const {
  py::gil_scoped_acquire gil;
  const auto values = collective(what, [&] {
    return py::array_t<double, py::array::c_style | py::array::forcecast>(
        std::forward<Call>(result)(view_of(data, count)));
  });
  if (static_cast<std::size_t>(values.size()) != count) {
    throw Error(std::string("the ") + what + " between processes returned " +
                std::to_string(values.size()) + " values for " + std::to_string(count));
  }
  std::copy(values.data(), values.data() + count, data);
}

void PythonCommunicator::allreduce_sum(double* data, std::size_t count) const {
  replace_by("sum", data, count,
             [&](const py::array_t<double>& view) { return collective_.attr("sum")(view); });
}

void PythonCommunicator::allreduce_max(double* data, std::size_t count) const {
  replace_by("maximum", data, count,
             [&](const py::array_t<double>& view) { return collective_.attr("max")(view); });
}

void PythonCommunicator::broadcast(double* data, std::size_t count, int root) const {
  replace_by("broadcast", data, count, [&](const py::array_t<double>& view) {
    return collective_.attr("broadcast")(view, root);
  });
}

std::vector<std::int64_t> PythonCommunicator::all_counts(std::int64_t value) const {
  py::gil_scoped_acquire gil;
  const py::list counts =
      collective("count", [&] { return py::list(collective_.attr("allgather")(value)); });
  std::vector<std::int64_t> all;
  for (const py::handle count : counts) all.push_back(count.cast<std::int64_t>());
  if (all.size() != static_cast<std::size_t>(size_)) {
    throw Error("the count between processes returned " + std::to_string(all.size()) +
                " values for " + std::to_string(size_) + " processes");
  }
  return all;
}

std::int64_t PythonCommunicator::sum_counts(std::int64_t value) const {
  const std::vector<std::int64_t> all = all_counts(value);
  return std::accumulate(all.begin(), all.end(), std::int64_t{0});
}

std::int64_t PythonCommunicator::sum_counts_below(std::int64_t value) const {
  const std::vector<std::int64_t> all = all_counts(value);
  return std::accumulate(all.begin(), all.begin() + rank_, std::int64_t{0});
}

std::vector<double> PythonCommunicator::gather_all(const std::vector<double>& local) const {
  py::gil_scoped_acquire gil;
  const py::list parts = collective("gather", [&] {
    return py::list(collective_.attr("allgather")(
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
      collective("gather", [&] { return collective_.attr("gather_to_root")(local_count); });
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
  const auto mine = collective("scatter", [&] {
    return collective_.attr("scatter_from_root")(parts).cast<py::array_t<std::int32_t>>();
  });
  return {mine.data(), mine.data() + mine.size()};
}

std::optional<RankError> PythonCommunicator::first_error(
    const std::optional<RankError>& local) const {
  py::gil_scoped_acquire gil;
  const py::object mine =
      local ? py::object(py::make_tuple(local->type, local->message)) : py::object(py::none());
  const py::list errors = collective("exchange of errors",
                                     [&] { return py::list(collective_.attr("allgather")(mine)); });
  for (const py::handle error : errors) {
    if (!error.is_none()) {
      const auto pair = error.cast<py::tuple>();
      return RankError{pair[0].cast<std::string>(), pair[1].cast<std::string>()};
    }
  }
  return std::nullopt;
}

std::unique_ptr<Communicator> communicator_of(const py::object& collective) {
  if (collective.is_none()) return nullptr;
  return std::make_unique<PythonCommunicator>(collective);
}

}  // namespace cdens::python

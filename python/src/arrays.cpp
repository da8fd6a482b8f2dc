#include "arrays.hpp"

#include <string>
#include <utility>

namespace py = pybind11;

namespace cdens::python {

Eigen::Map<const Matrix> samples_of(const py::array& array, const char* name) {
  const bool is_c_order_float64 =
      array.dtype().is(py::dtype::of<double>()) && (array.flags() & py::array::c_style) != 0;
  if (array.ndim() != 2 || !is_c_order_float64) {
    throw py::type_error(std::string(name) +
                         " must be a 2-D C-order float64 array at this level (the estimator "
                         "classes convert other inputs)");
  }
  const auto n = static_cast<Index>(array.shape(0));
  const auto d = static_cast<Index>(array.shape(1));
  return {static_cast<const double*>(array.data()), d, n};
}

namespace {

/// A numpy array viewing memory owned by `owner`, freed when the array is.
template <typename EigenObject>
py::array_t<double> owning_array(EigenObject&& values, std::vector<py::ssize_t> shape,
                                 std::vector<py::ssize_t> strides) {
  auto* owned = new EigenObject(std::move(values));
  py::capsule free_when_done(owned,
                             [](void* pointer) { delete static_cast<EigenObject*>(pointer); });
  return py::array_t<double>(std::move(shape), std::move(strides), owned->data(), free_when_done);
}

}  // namespace

py::array_t<double> samples_to_numpy(Matrix&& samples) {
  const auto d = static_cast<py::ssize_t>(samples.rows());
  const auto n = static_cast<py::ssize_t>(samples.cols());
  const auto item = static_cast<py::ssize_t>(sizeof(double));
  return owning_array(std::move(samples), {n, d}, {d * item, item});
}

py::array_t<double> vector_to_numpy(Vector&& values) {
  const auto n = static_cast<py::ssize_t>(values.size());
  return owning_array(std::move(values), {n}, {static_cast<py::ssize_t>(sizeof(double))});
}

std::vector<double> numbers_of(const py::array& array, const char* name) {
  if (array.ndim() != 1 || !array.dtype().is(py::dtype::of<double>())) {
    throw py::type_error(std::string(name) + " must be a 1-D float64 array at this level");
  }
  const auto values = array.unchecked<double, 1>();
  std::vector<double> numbers;
  numbers.reserve(static_cast<std::size_t>(values.shape(0)));
  for (py::ssize_t i = 0; i < values.shape(0); ++i) numbers.push_back(values(i));
  return numbers;
}

}  // namespace cdens::python

#pragma once
// Arrays across the Python boundary. A numpy array of shape (n, d) in C order holds the same
// memory as the library's d × n column-major sample matrix, so inputs are mapped, never copied,
// and results go back as arrays that own the Eigen matrix they view.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::python {

/// A (n, d) C-order float64 array seen as the d × n sample matrix it already is. The Python layer
/// (cdens/_validation.py) converts every other layout and dtype once before calling in; here a
/// wrong layout is a programming error and raises TypeError rather than copying quietly.
Eigen::Map<const Matrix> samples_of(const pybind11::array& array, const char* name);

/// The d × n matrix as a numpy array of shape (n, d) that takes ownership of it (no copy).
pybind11::array_t<double> samples_to_numpy(Matrix&& samples);

/// A vector as a 1-D numpy array that takes ownership of it (no copy).
pybind11::array_t<double> vector_to_numpy(Vector&& values);

/// A 1-D float64 array as a list of numbers (small parameter lists: grids, probabilities).
std::vector<double> numbers_of(const pybind11::array& array, const char* name);

}  // namespace cdens::python

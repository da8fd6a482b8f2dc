#pragma once
// Matrix types shared by the whole library.
//
// Samples are columns: a data set of n points in d dimensions is a d × n column-major matrix.
// A numpy array of shape (n, d) in C order is exactly this memory.

#include <Eigen/Core>

namespace cdens {

using Index = Eigen::Index;
using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
/// Read-only view of a d × n block of samples; binds to a Matrix or a mapped buffer without a copy.
using MatrixView = Eigen::Ref<const Matrix>;
/// Read-only view of a vector.
using VectorView = Eigen::Ref<const Vector>;

}  // namespace cdens

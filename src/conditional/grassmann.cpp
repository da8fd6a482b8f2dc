#include "conditional/grassmann.hpp"

#include <Eigen/QR>
#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

#include "cdens/core/types.hpp"

namespace cdens {
namespace {

constexpr double kArmijo = 1e-4;
constexpr int kMaxHalvings = 30;
constexpr int kMaxDoublings = 12;

/// The d_x × d_x orthogonal Q of a QR factorisation of Wᵀ; its first d_z columns span the rows
/// of W.
Matrix full_orthogonal_basis(const Matrix& w) {
  const Eigen::HouseholderQR<Matrix> qr(w.transpose());
  return qr.householderQ() * Matrix::Identity(w.cols(), w.cols());
}

}  // namespace

Matrix random_orthonormal_rows(Index rows, Index cols, Rng& rng) {
  if (rows < 1 || rows > cols) {
    throw InvalidArgument("a subspace needs 1 ≤ d_z ≤ d_x (got d_z = " + std::to_string(rows) +
                          ", d_x = " + std::to_string(cols) + ")");
  }
  Matrix gaussian(cols, rows);
  for (Index j = 0; j < rows; ++j) {
    for (Index i = 0; i < cols; ++i) gaussian(i, j) = rng.normal();
  }
  const Eigen::HouseholderQR<Matrix> qr(gaussian);
  return (qr.householderQ() * Matrix::Identity(cols, rows)).transpose();
}

Matrix orthonormal_complement(const Matrix& w) {
  return full_orthogonal_basis(w).rightCols(w.cols() - w.rows()).transpose();
}

Matrix natural_gradient(const Matrix& w, const Matrix& euclidean_gradient) {
  return euclidean_gradient - (euclidean_gradient * w.transpose()) * w;
}

GrassmannGeodesic::GrassmannGeodesic(const Matrix& w, const Matrix& euclidean_gradient)
    : rows_(w.rows()) {
  const Index d = w.cols();
  const Matrix complement = orthonormal_complement(w);
  frame_.resize(d, d);
  frame_ << w, complement;
  const Matrix coupling = euclidean_gradient * complement.transpose();  // G W⊥ᵀ, d_z × (d_x − d_z)
  generator_ = Matrix::Zero(d, d);
  generator_.topRightCorner(rows_, d - rows_) = coupling;
  generator_.bottomLeftCorner(d - rows_, rows_) = -coupling.transpose();
  slope_ = -coupling.squaredNorm();
  speed_ = coupling.size() > 0 ? coupling.jacobiSvd().singularValues()(0) : 0.0;
}

Matrix GrassmannGeodesic::at(double t) const {
  const Matrix rotation = (-t * generator_).exp();
  return rotation.topRows(rows_) * frame_;
}

GeodesicStep geodesic_line_search(const GrassmannGeodesic& geodesic, double value_at_start,
                                  double initial_t,
                                  const std::function<double(const Matrix&)>& objective) {
  const double slope = geodesic.slope();
  GeodesicStep step{geodesic.at(0.0), value_at_start, 0.0, 0};
  if (!(slope < 0.0)) return step;
  const auto sufficient = [&](double t, double value) {
    return value <= value_at_start + kArmijo * t * slope;
  };
  double t = initial_t;
  Matrix w = geodesic.at(t);
  double value = objective(w);
  ++step.evaluations;
  if (sufficient(t, value)) {
    step = {std::move(w), value, t, step.evaluations};
    for (int doubling = 0; doubling < kMaxDoublings; ++doubling) {
      t *= 2.0;
      w = geodesic.at(t);
      value = objective(w);
      ++step.evaluations;
      if (!(value < step.value)) break;
      step = {std::move(w), value, t, step.evaluations};
    }
    return step;
  }
  for (int halving = 0; halving < kMaxHalvings; ++halving) {
    t *= 0.5;
    w = geodesic.at(t);
    value = objective(w);
    ++step.evaluations;
    if (sufficient(t, value)) return {std::move(w), value, t, step.evaluations};
  }
  return step;
}

}  // namespace cdens

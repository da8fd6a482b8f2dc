#include "cdens/conditional/lscde_system.hpp"

#include <cmath>

#include <Eigen/Eigenvalues>

#include "cdens/conditional/lscde_gate.hpp"
#include "cdens/core/error.hpp"

namespace cdens {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// φ_x(x_i)ᵀ as rows: exp of the log-factors, m × b.
Matrix input_factors(const MatrixView& x, const LscdeBasis& basis) {
  return log_basis_factors(x, basis.centers_x, basis.sigma).array().exp();
}

/// Columns of `data` listed in `columns`.
Matrix gather(const MatrixView& data, const std::vector<Index>& columns) {
  Matrix selected(data.rows(), static_cast<Index>(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    selected.col(static_cast<Index>(c)) = data.col(columns[c]);
  }
  return selected;
}

}  // namespace

LscdeSums LscdeSums::zero(Index basis_size) {
  return {Matrix::Zero(basis_size, basis_size), Vector::Zero(basis_size), 0, 0};
}

LscdeSums& LscdeSums::operator+=(const LscdeSums& other) {
  input_gram += other.input_gram;
  joint += other.joint;
  n_inputs += other.n_inputs;
  n_pairs += other.n_pairs;
  return *this;
}

LscdeSums lscde_pair_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis) {
  const Matrix phi_x = input_factors(x, basis);
  const Matrix phi_y = log_basis_factors(y, basis.centers_y, basis.sigma).array().exp();
  LscdeSums sums;
  sums.input_gram.noalias() = phi_x.transpose() * phi_x;
  sums.joint = phi_x.cwiseProduct(phi_y).colwise().sum().transpose();
  sums.n_inputs = x.cols();
  sums.n_pairs = x.cols();
  return sums;
}

LscdeSums lscde_input_sums(const MatrixView& x, const LscdeBasis& basis) {
  const Matrix phi_x = input_factors(x, basis);
  LscdeSums sums;
  sums.input_gram.noalias() = phi_x.transpose() * phi_x;
  sums.joint = Vector::Zero(basis.size());
  sums.n_inputs = x.cols();
  sums.n_pairs = 0;
  return sums;
}

LscdeSystem lscde_system(const LscdeSums& sums, const Matrix& output_overlap,
                         const LscdeBasis& basis) {
  if (sums.n_pairs == 0) throw InvalidArgument("LSCDE needs at least one training pair");
  const double output_dim = static_cast<double>(basis.centers_y.rows());
  // Φ̄ of §2.6: the y-integral of two Gaussians of width σ gives (√π σ)^{d_y} K_v.
  const double scale = std::pow(std::sqrt(kPi) * basis.sigma, output_dim) /
                       static_cast<double>(sums.n_inputs);
  return {scale * sums.input_gram.cwiseProduct(output_overlap),
          sums.joint / static_cast<double>(sums.n_pairs)};
}

LscdeLambdaPath::LscdeLambdaPath(const LscdeSystem& system) {
  const Eigen::SelfAdjointEigenSolver<Matrix> solver(system.h_matrix);
  if (solver.info() != Eigen::Success) {
    throw DataError("the eigendecomposition of the LSCDE matrix H did not converge");
  }
  eigenvalues_ = solver.eigenvalues();
  eigenvectors_ = solver.eigenvectors();
  projected_h_ = eigenvectors_.transpose() * system.h_vector;
}

Matrix LscdeLambdaPath::coefficients(const std::vector<double>& lambdas) const {
  const auto count = static_cast<Index>(lambdas.size());
  Matrix scaled(projected_h_.size(), count);
  for (Index j = 0; j < count; ++j) {
    // Ĥ is positive semi-definite; eigenvalues below zero are rounding noise.
    scaled.col(j) = projected_h_.array() / (eigenvalues_.array().max(0.0) + lambdas[j]);
  }
  Matrix alphas = eigenvectors_ * scaled;
  return alphas.cwiseMax(0.0);
}

Vector lscde_held_out_loss_sums(const MatrixView& x, const MatrixView& y, const LscdeBasis& basis,
                                const Matrix& output_overlap, const Matrix& alphas, CvLoss loss) {
  const Index m = x.cols();
  const Index count = alphas.cols();
  const double output_dim = static_cast<double>(y.rows());
  const double sigma = basis.sigma;
  Vector sums = Vector::Zero(count);
  if (m == 0) return sums;

  // Shift each row by its largest log-term before exponentiating; the shifts cancel in the
  // ratio of eq. (8) and keep small σ from underflowing every term.
  const Matrix log_x = log_basis_factors(x, basis.centers_x, sigma);
  const Matrix log_joint = log_x + log_basis_factors(y, basis.centers_y, sigma);
  const Vector shift_x = log_x.rowwise().maxCoeff();
  const Vector shift_joint = log_joint.rowwise().maxCoeff();
  const Matrix input_terms = (log_x.colwise() - shift_x).array().exp();
  const Matrix joint_terms = (log_joint.colwise() - shift_joint).array().exp();
  const Matrix denominators = input_terms * alphas;  // Σ_l α_l φ_x,l(x_i) e^{−shift_x}
  const Matrix numerators = joint_terms * alphas;    // Σ_l α_l φ_l(x_i, y_i) e^{−shift_joint}
  // (√(2π) σ)^{d_y}: the y-integral of the basis, eq. (8) and §2.6.
  const double log_output_integral = output_dim * std::log(std::sqrt(2.0 * kPi) * sigma);
  // ∫ N(y; v, σ²I) N(y; v', σ²I) dy = (4πσ²)^{−d_y/2} K_v.
  const double overlap_scale = std::pow(4.0 * kPi * sigma * sigma, -0.5 * output_dim);

  std::vector<std::vector<Index>> exact(static_cast<std::size_t>(count));
  for (Index j = 0; j < count; ++j) {
    auto& rows_to_redo = exact[static_cast<std::size_t>(j)];
    if (loss == CvLoss::kl) {
      for (Index i = 0; i < m; ++i) {
        const double numerator = numerators(i, j);
        const double denominator = denominators(i, j);
        if (numerator > 0.0 && denominator > 0.0) {
          sums(j) -= shift_joint(i) - shift_x(i) + std::log(numerator / denominator) -
                     log_output_integral;
        } else {
          rows_to_redo.push_back(i);
        }
      }
      continue;
    }
    const Matrix weighted = input_terms * alphas.col(j).asDiagonal();
    const Vector quadratic =
        (weighted * output_overlap).cwiseProduct(weighted).rowwise().sum();
    for (Index i = 0; i < m; ++i) {
      const double denominator = denominators(i, j);
      if (denominator > 0.0) {
        const double density = std::exp(shift_joint(i) - shift_x(i) - log_output_integral) *
                               numerators(i, j) / denominator;
        const double square_integral = overlap_scale * quadratic(i) / (denominator * denominator);
        sums(j) += 0.5 * square_integral - density;
      } else {
        rows_to_redo.push_back(i);
      }
    }
  }

  for (Index j = 0; j < count; ++j) {
    const auto& rows = exact[static_cast<std::size_t>(j)];
    if (rows.empty()) continue;
    const ConditionalMixture mixture =
        make_lscde_mixture(Standardizer::identity(x.rows()), Standardizer::identity(y.rows()),
                           basis, alphas.col(j));
    sums(j) += static_cast<double>(rows.size()) *
               held_out_loss(loss, mixture, gather(x, rows), gather(y, rows));
  }
  return sums;
}

}  // namespace cdens

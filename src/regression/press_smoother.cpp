#include "cdens/regression/press_smoother.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cdens/core/error.hpp"
#include "core/parallel.hpp"

namespace cdens {
namespace {

// Samples per block of the two GEMMs; fixed, so that partial sums (and with them the result)
// do not depend on the thread count.
constexpr Index kSampleBlock = 2048;

Index block_count(Index n) { return (n + kSampleBlock - 1) / kSampleBlock; }

/// Logits Bᵀ Z turned into log-softmax column by column, in place.
void log_softmax_columns(Eigen::Ref<Matrix> logits) {
  for (Index i = 0; i < logits.cols(); ++i) {
    auto column = logits.col(i);
    const double largest = column.maxCoeff();
    column.array() -= largest;
    column.array() -= std::log(column.array().exp().sum());
  }
}

/// Logits Bᵀ Z of a block of design columns; a single-precision design multiplies in single
/// precision (half the memory traffic of the GEMM) and returns double logits.
template <class Design>
void block_logits(const MatrixView& coefficients, const Design& design, Index start, Index width,
                  Eigen::Ref<Matrix> out) {
  if constexpr (std::is_same_v<typename Design::Scalar, float>) {
    out = (coefficients.transpose().cast<float>() * design.middleCols(start, width))
              .template cast<double>();
  } else {
    out.noalias() = coefficients.transpose() * design.middleCols(start, width);
  }
}

/// Z G_bᵀ for a block of design columns and the matching columns of G = ∂F/∂L.
template <class Design>
Matrix block_gradient(const Design& design, Index start, Index width, const Matrix& d_logits) {
  if constexpr (std::is_same_v<typename Design::Scalar, float>) {
    return (design.middleCols(start, width) *
            d_logits.middleCols(start, width).transpose().cast<float>())
        .template cast<double>();
  } else {
    return design.middleCols(start, width) * d_logits.middleCols(start, width).transpose();
  }
}

/// log W for the columns of the design, blockwise on `threads` threads.
template <class Design>
Matrix log_state_weights(const MatrixView& coefficients, const Design& design, int threads) {
  if (coefficients.rows() != design.rows()) {
    throw InvalidArgument("PRESS coefficients have " + std::to_string(coefficients.rows()) +
                          " rows but the design has dimension " + std::to_string(design.rows()));
  }
  const Index n = design.cols();
  Matrix log_weights(coefficients.cols(), n);
  parallel_for(threads, block_count(n), [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index width = std::min(kSampleBlock, n - start);
    auto out = log_weights.middleCols(start, width);
    block_logits(coefficients, design, start, width, out);
    log_softmax_columns(out);
  });
  return log_weights;
}

}  // namespace

std::string to_string(PressCriterion criterion) {
  switch (criterion) {
    case PressCriterion::mse:
      return "mse";
    case PressCriterion::loocv:
      return "loocv";
    case PressCriterion::gcv:
      return "gcv";
  }
  return "unknown";
}

PressCriterion parse_press_criterion(const std::string& name) {
  if (name == "mse") return PressCriterion::mse;
  if (name == "loocv") return PressCriterion::loocv;
  if (name == "gcv") return PressCriterion::gcv;
  throw InvalidArgument("unknown PRESS criterion '" + name + "' (known: mse, loocv, gcv)");
}

std::string to_string(PressOptimizer optimizer) {
  return optimizer == PressOptimizer::adam ? "adam" : "lbfgs";
}

PressOptimizer parse_press_optimizer(const std::string& name) {
  if (name == "adam") return PressOptimizer::adam;
  if (name == "lbfgs") return PressOptimizer::lbfgs;
  throw InvalidArgument("unknown PRESS optimiser '" + name + "' (known: adam, lbfgs)");
}

Matrix press_design(const MatrixView& x) {
  Matrix design(x.rows() + 1, x.cols());
  design.row(0).setOnes();
  design.bottomRows(x.rows()) = x;
  return design;
}

Matrix press_log_state_weights(const MatrixView& coefficients, const MatrixView& design,
                               int threads) {
  return log_state_weights(coefficients, design, resolve_threads(threads));
}

Matrix press_state_weights(const MatrixView& coefficients, const MatrixView& design, int threads) {
  return press_log_state_weights(coefficients, design, threads).array().exp();
}

PressSmoothing press_smoothing(const MatrixView& weights, const VectorView& y) {
  if (weights.cols() != y.size()) {
    throw InvalidArgument("PRESS smoothing: " + std::to_string(weights.cols()) +
                          " state weight columns but " + std::to_string(y.size()) + " outputs");
  }
  PressSmoothing result;
  result.state_sizes = weights.rowwise().sum();
  // A state no sample belongs to (σ_j underflowed to 0) contributes nothing: its mean is taken
  // as 0 and its 1/σ_j as 0 rather than NaN.
  const Vector inverse_sizes =
      result.state_sizes.unaryExpr([](double size) { return size > 0.0 ? 1.0 / size : 0.0; });
  result.state_means = (weights * y).cwiseProduct(inverse_sizes);
  result.fitted = weights.transpose() * result.state_means;
  const Matrix squared = weights.array().square();
  result.smoother_diagonal = squared.transpose() * inverse_sizes;
  result.degrees_of_freedom = result.smoother_diagonal.sum();
  return result;
}

Vector press_state_entropies(const MatrixView& weights) {
  return weights.unaryExpr([](double w) { return w > 0.0 ? -w * std::log2(w) : 0.0; })
      .colwise()
      .sum()
      .transpose();
}

PressObjective::PressObjective(Matrix design, Vector y, PressCriterion criterion,
                               PressSmoothnessPenalty penalty, int threads, bool single_precision)
    : design_dim_(design.rows()),
      y_(std::move(y)),
      criterion_(criterion),
      penalty_(penalty),
      threads_(resolve_threads(threads)) {
  if (design.cols() != y_.size()) {
    throw InvalidArgument("PRESS objective: the design has " + std::to_string(design.cols()) +
                          " samples but y has " + std::to_string(y_.size()));
  }
  if (single_precision) {
    single_design_ = design.cast<float>();
  } else {
    design_ = std::move(design);
  }
  if (y_.size() < 2) throw InvalidArgument("PRESS needs at least 2 training samples");
  if (!(penalty_.weight >= 0.0) || !std::isfinite(penalty_.weight) ||
      !std::isfinite(penalty_.target_dof)) {
    throw InvalidArgument("the smoothness penalty needs a finite weight mu >= 0 and target nu");
  }
}

PressEvaluation PressObjective::evaluate(const MatrixView& coefficients, Matrix* gradient) const {
  const Index n = n_samples();
  const auto count = static_cast<double>(n);
  const Matrix weights =
      (single_design_.size() > 0 ? log_state_weights(coefficients, single_design_, threads_)
                                 : log_state_weights(coefficients, design_, threads_))
          .array()
          .exp();
  const PressSmoothing smoothing = press_smoothing(weights, y_);
  const Vector residuals = y_ - smoothing.fitted;
  const double nu = smoothing.degrees_of_freedom;

  PressEvaluation result;
  result.mse = residuals.squaredNorm() / count;
  result.degrees_of_freedom = nu;
  result.state_means = smoothing.state_means;

  // r_i = ∂criterion/∂ŷ_i and t_i = ∂criterion/∂s_ii, plus ∂(criterion + penalty)/∂ν, which
  // acts on every s_ii alike because ν = Σ_i s_ii.
  Vector r;
  Vector t = Vector::Zero(n);
  double dof_derivative = 0.0;
  switch (criterion_) {
    case PressCriterion::mse:
      result.criterion = result.mse;
      r = -2.0 / count * residuals;
      break;
    case PressCriterion::loocv: {
      const Vector remainder = (1.0 - smoothing.smoother_diagonal.array()).matrix();
      if (remainder.minCoeff() <= 0.0) {
        result.criterion = result.value = std::numeric_limits<double>::infinity();
        if (gradient) gradient->setZero(coefficients.rows(), coefficients.cols());
        return result;
      }
      const Eigen::ArrayXd loo = residuals.array() / remainder.array();  // eq. (31)
      result.criterion = loo.square().sum() / count;                     // eq. (32)
      r = (-2.0 / count * loo / remainder.array()).matrix();
      t = (2.0 / count * loo.square() / remainder.array()).matrix();
      break;
    }
    case PressCriterion::gcv: {
      const double remainder = 1.0 - nu / count;
      if (remainder <= 0.0) {
        result.criterion = result.value = std::numeric_limits<double>::infinity();
        if (gradient) gradient->setZero(coefficients.rows(), coefficients.cols());
        return result;
      }
      result.criterion = result.mse / (remainder * remainder);  // eq. (34)
      r = -2.0 / (count * remainder * remainder) * residuals;
      dof_derivative += 2.0 * result.mse / (count * remainder * remainder * remainder);
      break;
    }
  }
  const double gap = penalty_.target_dof - nu;
  result.value = result.criterion + penalty_.weight * gap * gap;  // eq. (36)
  if (!gradient) return result;
  dof_derivative += -2.0 * penalty_.weight * gap;
  t.array() += dof_derivative;

  const Vector& sizes = smoothing.state_sizes;
  const Vector& means = smoothing.state_means;
  const Vector inverse_sizes =
      sizes.unaryExpr([](double size) { return size > 0.0 ? 1.0 / size : 0.0; });
  const Vector c = (weights * r).cwiseProduct(inverse_sizes);
  const Matrix squared = weights.array().square();
  const Vector e = (squared * t).cwiseProduct(inverse_sizes.cwiseAbs2());
  // ∂F/∂W (J × n), then through the softmax of every column.
  Matrix d_weights = means * r.transpose() + c * y_.transpose();
  d_weights.colwise() -= c.cwiseProduct(means) + e;
  d_weights += 2.0 * (inverse_sizes.asDiagonal() * weights) * t.asDiagonal();
  const Eigen::RowVectorXd column_means = weights.cwiseProduct(d_weights).colwise().sum();
  const Matrix d_logits = weights.cwiseProduct((d_weights.rowwise() - column_means).matrix());

  const Index blocks = block_count(n);
  std::vector<Matrix> partial(static_cast<std::size_t>(blocks));
  parallel_for(threads_, blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index width = std::min(kSampleBlock, n - start);
    partial[static_cast<std::size_t>(block)] =
        single_design_.size() > 0 ? block_gradient(single_design_, start, width, d_logits)
                                  : block_gradient(design_, start, width, d_logits);
  });
  *gradient = partial.front();
  for (std::size_t b = 1; b < partial.size(); ++b) *gradient += partial[b];
  return result;
}

}  // namespace cdens

#include "regression/press_smoother.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "cdens/core/types.hpp"
#include "parallel/parallel.hpp"
#include "regression/press_design_products.hpp"

namespace cdens {
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
  // No samples (no held-out part): an empty matrix has no storage, and a block of it below row
  // 0 would offset a null pointer.
  if (x.cols() == 0) return design;
  design.row(0).setOnes();
  design.bottomRows(x.rows()) = x;
  return design;
}

Matrix press_log_state_weights(const MatrixView& coefficients, const MatrixView& design,
                               int threads) {
  return PressDesignProducts(design, false)
      .log_state_weights(coefficients, resolve_threads(threads));
}

Matrix press_state_weights(const MatrixView& coefficients, const MatrixView& design, int threads) {
  return PressDesignProducts(design, false).state_weights(coefficients, resolve_threads(threads));
}

PressSmoothing press_smoothing(const MatrixView& weights, const VectorView& y,
                               const Communicator& communicator) {
  if (weights.cols() != y.size()) {
    throw InvalidArgument("PRESS smoothing: " + std::to_string(weights.cols()) +
                          " state weight columns but " + std::to_string(y.size()) + " outputs");
  }
  const Index j_count = weights.rows();
  // σ_j and Σ_i W_ji y_i over every rank's samples, in one call.
  Matrix state_sums(j_count, 2);
  state_sums.col(0) = weights.rowwise().sum();
  state_sums.col(1) = weights * y;
  communicator.allreduce_sum(state_sums.data(), static_cast<std::size_t>(state_sums.size()));
  PressSmoothing result;
  result.state_sizes = state_sums.col(0);
  // A state no sample belongs to (σ_j underflowed to 0) contributes nothing: its mean is taken
  // as 0 and its 1/σ_j as 0 rather than NaN.
  const Vector inverse_sizes =
      result.state_sizes.unaryExpr([](double size) { return size > 0.0 ? 1.0 / size : 0.0; });
  result.state_means = state_sums.col(1).cwiseProduct(inverse_sizes);
  result.fitted = weights.transpose() * result.state_means;
  const Matrix squared = weights.array().square();
  result.smoother_diagonal = squared.transpose() * inverse_sizes;
  result.degrees_of_freedom = result.smoother_diagonal.sum();
  communicator.allreduce_sum(&result.degrees_of_freedom, 1);
  return result;
}

Vector press_state_entropies(const MatrixView& weights) {
  return weights.unaryExpr([](double w) { return w > 0.0 ? -w * std::log2(w) : 0.0; })
      .colwise()
      .sum()
      .transpose();
}

PressObjective::PressObjective(const MatrixView& design, Vector y, PressCriterion criterion,
                               PressSmoothnessPenalty penalty, int threads, bool single_precision,
                               const Communicator& communicator)
    : design_(std::make_shared<const PressDesignProducts>(design, single_precision, communicator)),
      y_(std::move(y)),
      communicator_(&communicator),
      total_samples_(communicator.sum_counts(y_.size())),
      criterion_(criterion),
      penalty_(penalty),
      threads_(resolve_threads(threads)) {
  if (design.cols() != y_.size()) {
    throw InvalidArgument("PRESS objective: the design has " + std::to_string(design.cols()) +
                          " samples but y has " + std::to_string(y_.size()));
  }
  if (total_samples_ < 2) throw InvalidArgument("PRESS needs at least 2 training samples");
  if (!(penalty_.weight >= 0.0) || !std::isfinite(penalty_.weight) ||
      !std::isfinite(penalty_.target_dof)) {
    throw InvalidArgument("the smoothness penalty needs a finite weight mu >= 0 and target nu");
  }
}

Index PressObjective::design_dim() const { return design_->dim(); }

bool PressObjective::sparse_design() const {
  return design_->storage() == PressDesignStorage::sparse;
}

PressEvaluation PressObjective::evaluate(const MatrixView& coefficients, Matrix* gradient) const {
  const Communicator& communicator = *communicator_;
  const Index n = y_.size();  // this rank's samples
  const auto count = static_cast<double>(n_samples());
  const Matrix weights = design_->state_weights(coefficients, threads_);
  const PressSmoothing smoothing = press_smoothing(weights, y_, communicator);
  const Vector residuals = y_ - smoothing.fitted;
  const double nu = smoothing.degrees_of_freedom;
  // A LOOCV is finite when every s_ii < 1, on every rank.
  if (criterion_ == PressCriterion::loocv) {
    double largest_diagonal =
        n > 0 ? smoothing.smoother_diagonal.maxCoeff() : -std::numeric_limits<double>::infinity();
    communicator.allreduce_max(&largest_diagonal, 1);
    if (!(largest_diagonal < 1.0)) {
      PressEvaluation infinite;
      infinite.criterion = infinite.value = std::numeric_limits<double>::infinity();
      if (gradient) gradient->setZero(coefficients.rows(), coefficients.cols());
      return infinite;
    }
  }
  const Vector remainder = (1.0 - smoothing.smoother_diagonal.array()).matrix();
  const Eigen::ArrayXd loo = residuals.array() / remainder.array();  // eq. (31)
  // Σ_i u_i² and, for LOOCV, Σ_i (u_i / (1 − s_ii))² over every rank's samples.
  std::array<double, 2> squares{residuals.squaredNorm(),
                                criterion_ == PressCriterion::loocv ? loo.square().sum() : 0.0};
  communicator.allreduce_sum(squares.data(), squares.size());

  PressEvaluation result;
  result.mse = squares[0] / count;
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
      result.criterion = squares[1] / count;  // eq. (32)
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
  // Σ_k r_k W_jk and Σ_k t_k W_jk² over every rank's samples.
  Matrix gradient_sums(coefficients.cols(), 2);
  gradient_sums.col(0) = weights * r;
  gradient_sums.col(1) = weights.array().square().matrix() * t;
  communicator.allreduce_sum(gradient_sums.data(), static_cast<std::size_t>(gradient_sums.size()));
  const Vector c = gradient_sums.col(0).cwiseProduct(inverse_sizes);
  const Vector e = gradient_sums.col(1).cwiseProduct(inverse_sizes.cwiseAbs2());
  const Vector offset = c.cwiseProduct(means) + e;
  // ∂F/∂W (J × n) and through the softmax of every column, one block of samples at a time.
  const auto block_d_logits = [&](Index start, Eigen::Ref<Matrix> d_logits) {
    const Index width = d_logits.cols();
    const auto w = weights.middleCols(start, width);
    d_logits.noalias() = means * r.segment(start, width).transpose();
    d_logits.noalias() += c * y_.segment(start, width).transpose();
    d_logits.colwise() -= offset;
    d_logits += 2.0 * (inverse_sizes.asDiagonal() * w) * t.segment(start, width).asDiagonal();
    const Eigen::RowVectorXd column_means = w.cwiseProduct(d_logits).colwise().sum();
    d_logits = w.cwiseProduct((d_logits.rowwise() - column_means).matrix());
  };
  *gradient = design_->gradient(coefficients.cols(), block_d_logits, threads_);
  communicator.allreduce_sum(gradient->data(), static_cast<std::size_t>(gradient->size()));
  return result;
}

}  // namespace cdens

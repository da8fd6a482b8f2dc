#include "kernel_sums/weighted_sums.hpp"

#include <cmath>
#include <utility>

#include "core/log_space.hpp"

namespace cdens {

WeightedSums::WeightedSums(Matrix log_terms, const Matrix& alphas, double cutoff)
    : log_terms_(std::move(log_terms)),
      alphas_(alphas),
      shift_(log_terms_.rowwise().maxCoeff()),
      terms_(exp_flushing_below(log_terms_.colwise() - shift_, cutoff)),
      shifted_(terms_ * alphas_) {}

double WeightedSums::log_sum(Index i, Index j) const {
  if (shifted_(i, j) > 0.0) return shift_(i) + std::log(shifted_(i, j));
  // log α_lj + L_il, −∞ where α_lj = 0 (log_sum_exp leaves those terms out).
  const Vector terms = log_terms_.row(i).transpose().array() + alphas_.col(j).array().log();
  return log_sum_exp(terms);
}

Vector log_ratio_sums(const WeightedSums& numerators, const WeightedSums& denominators,
                      const Vector& row_weights) {
  const Matrix& top = numerators.shifted();
  const Matrix& bottom = denominators.shifted();
  const std::vector<bool> positive = has_positive_coefficient(numerators.alphas());
  Vector sums = Vector::Zero(top.cols());
  for (Index j = 0; j < top.cols(); ++j) {
    if (!positive[static_cast<std::size_t>(j)]) continue;
    for (Index i = 0; i < top.rows(); ++i) {
      const double log_ratio =
          top(i, j) > 0.0 && bottom(i, j) > 0.0
              ? numerators.shift()(i) - denominators.shift()(i) + std::log(top(i, j) / bottom(i, j))
              : numerators.log_sum(i, j) - denominators.log_sum(i, j);
      sums(j) += row_weights.size() > 0 ? row_weights(i) * log_ratio : log_ratio;
    }
  }
  return sums;
}

std::vector<bool> has_positive_coefficient(const Matrix& alphas) {
  std::vector<bool> positive(static_cast<std::size_t>(alphas.cols()));
  for (Index j = 0; j < alphas.cols(); ++j) {
    positive[static_cast<std::size_t>(j)] = (alphas.col(j).array() > 0.0).any();
  }
  return positive;
}

}  // namespace cdens

#include "cdens/core/standardizer.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"
#include "core/sample_weights.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"

namespace cdens {

Standardizer::Standardizer(Vector mean, Vector scale)
    : mean_(std::move(mean)), scale_(std::move(scale)) {
  if (mean_.size() != scale_.size()) {
    throw InvalidArgument("standardiser mean and scale have different lengths");
  }
  for (Index i = 0; i < scale_.size(); ++i) {
    if (!std::isfinite(mean_(i))) throw InvalidArgument("standardiser mean is not finite");
    require_positive(scale_(i), "standardiser scale");
  }
}

Standardizer Standardizer::fit(const MatrixView& data, std::string_view what,
                               const std::vector<std::string>& names) {
  return fit(data, local_communicator(), what, names);
}

Standardizer Standardizer::fit(const MatrixView& data, const Communicator& communicator,
                               std::string_view what, const std::vector<std::string>& names) {
  return fit_rows(data, communicator, Vector(), what, names);
}

Standardizer Standardizer::fit(const MatrixView& data, const Vector& weights, std::string_view what,
                               const std::vector<std::string>& names) {
  return fit_rows(data, local_communicator(), weights, what, names);
}

Standardizer Standardizer::fit_rows(const MatrixView& data, const Communicator& communicator,
                                    const Vector& weights, std::string_view what,
                                    const std::vector<std::string>& names) {
  const bool weighted = weights.size() > 0;
  const Index d = data.rows();
  const std::int64_t n = communicator.sum_counts(data.cols());
  agree_on_errors(communicator, [&] {
    if (d == 0 || n == 0) require_nonempty(data, what);
    require_finite(data, what);
  });
  if (n < 2) throw DataError(std::string(what) + " needs at least 2 samples to be standardised");
  // Per dimension, over every rank: the largest value, minus the smallest, the largest magnitude.
  std::vector<double> extremes(static_cast<std::size_t>(3 * d),
                               -std::numeric_limits<double>::infinity());
  for (Index i = 0; i < d && data.cols() > 0; ++i) {
    extremes[static_cast<std::size_t>(3 * i)] = data.row(i).maxCoeff();
    extremes[static_cast<std::size_t>(3 * i + 1)] = -data.row(i).minCoeff();
    extremes[static_cast<std::size_t>(3 * i + 2)] = data.row(i).cwiseAbs().maxCoeff();
  }
  communicator.allreduce_max(extremes.data(), extremes.size());
  // Two passes over the rows, each summed over the ranks: the mean, then the squared deviations
  // from it. The second pass is as accurate as the single-process computation (no cancellation,
  // unlike merging sums of squares), and on one process both are the same operations, so the
  // result is the same to the bit.
  // Scale first, then centre: dividing by the largest magnitude brings every value into [−1, 1],
  // so neither the squares of values near 1e300 overflow nor those of values near 1e−300
  // underflow; the data's own magnitude does not matter. (Recomputed in each pass rather than
  // kept: a copy of the data would double the memory.)
  const auto scaled_row = [&](Index i) -> Eigen::RowVectorXd {
    return data.row(i) / extremes[static_cast<std::size_t>(3 * i + 2)];
  };
  Vector sums(d);
  for (Index i = 0; i < d; ++i) {
    sums(i) = weighted ? scaled_row(i).dot(weights) : scaled_row(i).sum();
  }
  communicator.allreduce_sum(sums.data(), static_cast<std::size_t>(d));
  const double total_weight = weighted ? weights.sum() : static_cast<double>(n);
  const Vector scaled_mean = sums / total_weight;
  Vector squares(d);
  for (Index i = 0; i < d; ++i) {
    if (weighted) {
      const Eigen::RowVectorXd row = scaled_row(i);
      squares(i) = ((row.array() - scaled_mean(i)).square() * weights.transpose().array()).sum();
    } else {
      squares(i) = (scaled_row(i).array() - scaled_mean(i)).square().sum();
    }
  }
  communicator.allreduce_sum(squares.data(), static_cast<std::size_t>(d));
  // Bessel's n − 1, weighted: Σw (n_e − 1) / n_e with Kish's effective size n_e.
  const double divisor = weighted ? total_weight * (1.0 - 1.0 / effective_sample_size(weights))
                                  : static_cast<double>(n - 1);
  Vector mean(d);
  Vector scale(d);
  for (Index i = 0; i < d; ++i) {
    const double largest = extremes[static_cast<std::size_t>(3 * i)];
    const double magnitude = extremes[static_cast<std::size_t>(3 * i + 2)];
    const bool constant = largest == -extremes[static_cast<std::size_t>(3 * i + 1)];
    if (!constant) {
      mean(i) = scaled_mean(i) * magnitude;
      scale(i) = std::sqrt(squares(i) / divisor) * magnitude;
    }
    // Only a column whose values are all equal is constant; a spread too small to be a normal
    // double (values differing in their last bits around 1e−300) cannot be divided by safely.
    if (constant || !(scale(i) >= std::numeric_limits<double>::min())) {
      std::ostringstream message;
      message << what << " "
              << (static_cast<std::size_t>(i) < names.size() ? "column '" + names[i] + "'"
                                                             : "dimension " + std::to_string(i))
              << (constant ? " is constant (every value is " : " varies too little (around ")
              << largest << "): it carries no information and cannot be standardised";
      throw DataError(message.str());
    }
  }
  return Standardizer(mean, scale);
}

Standardizer Standardizer::identity(Index dimension) {
  return Standardizer(Vector::Zero(dimension), Vector::Ones(dimension));
}

Matrix Standardizer::transform(const MatrixView& data) const {
  require_dimension(data, dimension(), "data to standardise");
  return (data.colwise() - mean_).array().colwise() / scale_.array();
}

Matrix Standardizer::transform_query(const MatrixView& data, std::string_view what) const {
  require_dimension(data, dimension(), what);
  require_finite(data, what);
  Matrix z = transform(data);
  require_finite(z, std::string(what) +
                        " after standardisation (a value too large for the "
                        "model's scale)");
  return z;
}

Matrix Standardizer::inverse_transform(const MatrixView& standardized) const {
  require_dimension(standardized, dimension(), "standardised data");
  return (standardized.array().colwise() * scale_.array()).matrix().colwise() + mean_;
}

double Standardizer::log_jacobian() const { return -scale_.array().log().sum(); }

nlohmann::json Standardizer::to_json() const {
  return {{"mean", vector_to_json(mean_)}, {"scale", vector_to_json(scale_)}};
}

Standardizer Standardizer::from_json(const nlohmann::json& document) {
  return Standardizer(vector_from_json(json_member(document, "mean"), "standardiser mean"),
                      vector_from_json(json_member(document, "scale"), "standardiser scale"));
}

}  // namespace cdens

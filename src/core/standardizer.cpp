#include "cdens/core/standardizer.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cdens/core/error.hpp"
#include "cdens/core/json_io.hpp"
#include "cdens/core/validate.hpp"

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
  require_nonempty(data, what);
  require_finite(data, what);
  if (data.cols() < 2) {
    throw DataError(std::string(what) + " needs at least 2 samples to be standardised");
  }
  Vector mean(data.rows());
  Vector scale(data.rows());
  for (Index i = 0; i < data.rows(); ++i) {
    // Scale first, then centre: dividing by the largest magnitude brings every value into
    // [−1, 1], so neither the squares of values near 1e300 overflow nor those of values near
    // 1e−300 underflow; the data's own magnitude does not matter.
    const double magnitude = data.row(i).cwiseAbs().maxCoeff();
    const bool constant = data.row(i).maxCoeff() == data.row(i).minCoeff();
    double spread = 0.0;
    if (!constant) {
      const Eigen::RowVectorXd scaled = data.row(i) / magnitude;
      const double scaled_mean = scaled.mean();
      spread = std::sqrt((scaled.array() - scaled_mean).square().sum() /
                         static_cast<double>(data.cols() - 1));
      mean(i) = scaled_mean * magnitude;
      scale(i) = spread * magnitude;
    }
    // Only a column whose values are all equal is constant; a spread too small to be a normal
    // double (values differing in their last bits around 1e−300) cannot be divided by safely.
    if (constant || !(scale(i) >= std::numeric_limits<double>::min())) {
      std::ostringstream message;
      message << what << " "
              << (static_cast<std::size_t>(i) < names.size() ? "column '" + names[i] + "'"
                                                             : "dimension " + std::to_string(i))
              << (constant ? " is constant (every value is " : " varies too little (around ")
              << data(i, 0) << "): it carries no information and cannot be standardised";
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

#include "conditional/kernel_gates.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "conditional/gate_coefficients.hpp"
#include "core/validate.hpp"
#include "io/json_io.hpp"
#include "kernel_sums/gaussian_kernel.hpp"

namespace cdens {

DistanceGate::DistanceGate(Matrix centers_x, double width, std::string width_name)
    : centers_x_(std::move(centers_x)), width_(width), width_name_(std::move(width_name)) {
  require_positive(width_, "gate width " + width_name_);
  if (centers_x_.cols() == 0 || centers_x_.rows() == 0) {
    throw InvalidArgument("a kernel gate needs at least one centre of dimension at least 1");
  }
  require_gate_centres(centers_x_, "kernel gate");
}

Vector DistanceGate::log_marginal_weights() const { return Vector::Zero(n_components()); }

nlohmann::json DistanceGate::to_json() const {
  return {{"centers_x", matrix_to_json(centers_x_)}, {width_name_, width_}};
}

void DistanceGate::squared_distances_to(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  squared_distances(centers_x_, x, out);
}

DistanceGate::Parameters DistanceGate::read_parameters(const nlohmann::json& document,
                                                       const std::string& width_name) {
  const auto& width = json_member(document, width_name);
  if (!width.is_number()) throw ModelFormatError("gate: " + width_name + " is not a number");
  return {matrix_from_json(json_member(document, "centers_x"), "gate centres"),
          width.get<double>()};
}

EpsilonBallGate::EpsilonBallGate(Matrix centers_x, double epsilon)
    : DistanceGate(std::move(centers_x), epsilon, "epsilon") {}

void EpsilonBallGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  squared_distances_to(x, out);
  const double radius_squared = epsilon() * epsilon();
  out = out.unaryExpr(
      [radius_squared](double distance) { return distance <= radius_squared ? 0.0 : -INFINITY; });
}

std::shared_ptr<const EpsilonBallGate> EpsilonBallGate::from_json(const nlohmann::json& document) {
  Parameters parameters = read_parameters(document, "epsilon");
  return std::make_shared<const EpsilonBallGate>(std::move(parameters.centers_x), parameters.width);
}

GaussianKernelGate::GaussianKernelGate(Matrix centers_x, double sigma)
    : DistanceGate(std::move(centers_x), sigma, "sigma") {}

void GaussianKernelGate::log_weights(const MatrixView& x, Eigen::Ref<Matrix> out) const {
  squared_distances_to(x, out);
  out *= -0.5 / (sigma() * sigma());
}

std::shared_ptr<const GaussianKernelGate> GaussianKernelGate::from_json(
    const nlohmann::json& document) {
  Parameters parameters = read_parameters(document, "sigma");
  return std::make_shared<const GaussianKernelGate>(std::move(parameters.centers_x),
                                                    parameters.width);
}

ConditionalMixture make_output_kernel_mixture(const Standardizer& x_scaling,
                                              const Standardizer& y_scaling,
                                              std::shared_ptr<const ConditionalGate> gate,
                                              Matrix centers_y, double sigma) {
  require_positive(sigma, "output kernel width sigma");
  Matrix scales = Matrix::Constant(centers_y.rows(), centers_y.cols(), sigma);
  return ConditionalMixture(x_scaling, y_scaling, std::move(gate),
                            MixtureOutputs::gaussian(std::move(centers_y), std::move(scales)));
}

}  // namespace cdens

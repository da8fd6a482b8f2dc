#include "conditional/output_transform_fit.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/error.hpp"
#include "cdens/core/standardizer.hpp"
#include "core/validate.hpp"

namespace cdens {
namespace {

constexpr int kLambdaSteps = 200;  // λ = 0, 0.01, …, 2

/// The report's leave-one-out NLLs in B(y)'s units moved to y's: minus the mean log B′ over the
/// pairs each one averages (the held-out ones for KCDE's criterion, all for the Gaussian ones).
void add_jacobian(FitReport& report, const Vector& log_derivatives) {
  double held_out_mean = log_derivatives.mean();
  if (report.held_out) {
    HeldOutLogDensities& held_out = *report.held_out;
    if (held_out.pairs.empty()) {
      held_out.log_densities += log_derivatives;
    } else {
      double sum = 0.0;
      for (std::size_t p = 0; p < held_out.pairs.size(); ++p) {
        const double value = log_derivatives(held_out.pairs[p]);
        held_out.log_densities(static_cast<Index>(p)) += value;
        sum += value;
      }
      held_out_mean = sum / static_cast<double>(held_out.pairs.size());
    }
  }
  for (const char* key : {"loo_nll", "loo_nll_unmixed"}) {
    if (report.statistics.count(key) != 0) report.statistics[key] -= held_out_mean;
  }
  for (const char* key : {"linear_loo_nll", "trend_loo_nll"}) {
    if (report.statistics.count(key) != 0) report.statistics[key] -= log_derivatives.mean();
  }
}

}  // namespace

double yeo_johnson_profile_lambda(const MatrixView& x, const VectorView& v) {
  const Index n = v.size();
  Matrix design(n, x.rows() + 1);
  design.col(0).setOnes();
  design.rightCols(x.rows()) = x.transpose();
  const Eigen::ColPivHouseholderQR<Matrix> least_squares(design);
  double best_lambda = 1.0;
  double best = -INFINITY;
  for (int step = 0; step <= kLambdaSteps; ++step) {
    const double lambda = 2.0 * step / kLambdaSteps;
    const OutputTransform map = OutputTransform::yeo_johnson(lambda, 0.0, 1.0, 0.0, 1.0);
    Vector w(n);
    double log_derivatives = 0.0;
    for (Index i = 0; i < n; ++i) {
      w(i) = map.base(v(i));
      log_derivatives += map.log_derivative(v(i));
    }
    if (!w.allFinite()) continue;
    const double residual_variance =
        (w - design * least_squares.solve(w)).squaredNorm() / static_cast<double>(n);
    if (!(residual_variance > 0.0)) continue;
    const double profile =
        -0.5 * static_cast<double>(n) * std::log(residual_variance) + log_derivatives;
    if (profile > best) {
      best = profile;
      best_lambda = lambda;
    }
  }
  return best_lambda;
}

ConditionalFit fit_on_transformed_output(
    const MatrixView& x, const MatrixView& y, OutputTransformChoice choice,
    const FitContext& context,
    const std::function<ConditionalFit(const MatrixView& transformed, const OutputTransform& base)>&
        fit) {
  const std::string name = "y_transform = " + to_string(choice);
  if (context.communicator.size() > 1) {
    throw InvalidArgument(name +
                          " runs on one process: the transform is chosen from every output at "
                          "once (docs/distributed.md); fit with y_transform = none or on one "
                          "process");
  }
  if (context.weighted()) {
    throw InvalidArgument(name + " does not support sample weights; use y_transform = none");
  }
  if (y.rows() != 1) {
    throw InvalidArgument(
        name + " needs a one-dimensional y; the data have d_y = " + std::to_string(y.rows()));
  }
  require_finite(y, "y");
  const Standardizer y_scaling = Standardizer::fit(y, "y");
  const Index n = y.cols();
  // B with m = 0 and s = 1; the fitted model's standardisation of B(y) supplies m and s.
  std::optional<OutputTransform> base;
  if (choice == OutputTransformChoice::log) {
    const double smallest = y.minCoeff();
    if (!(smallest > 0.0)) {
      throw InvalidArgument(name + " needs positive outputs; the smallest y is " +
                            std::to_string(smallest));
    }
    base = OutputTransform::log(0.0, 1.0);
  } else {
    const double location = y_scaling.mean()(0);
    const double spread = y_scaling.scale()(0);
    const Vector v = ((y.row(0).array() - location) / spread).transpose();
    base =
        OutputTransform::yeo_johnson(yeo_johnson_profile_lambda(x, v), location, spread, 0.0, 1.0);
  }
  Matrix transformed(1, n);
  Vector log_derivatives(n);
  for (Index i = 0; i < n; ++i) {
    transformed(0, i) = base->base(y(0, i));
    log_derivatives(i) = base->log_derivative(y(0, i));
  }
  require_finite(transformed, "the transformed outputs");
  ConditionalFit inner = fit(transformed, *base);
  const ConditionalMixture& model = inner.model;
  const double mean = model.y_scaling().mean()(0);
  const double scale = model.y_scaling().scale()(0);
  const auto transform = std::make_shared<const OutputTransform>(
      base->kind() == OutputTransformKind::log
          ? OutputTransform::log(mean, scale)
          : OutputTransform::yeo_johnson(base->lambda(), y_scaling.mean()(0), y_scaling.scale()(0),
                                         mean, scale));
  std::vector<TrendGroup> groups = model.trend_groups();
  for (TrendGroup& group : groups) group.transform = transform;
  ConditionalFit result{
      ConditionalMixture(model.x_scaling(), y_scaling, model.shared_gate(), model.centers(),
                         model.scales(), std::move(groups), model.output_kernels()),
      std::move(inner.report)};
  add_jacobian(result.report, log_derivatives);
  result.report.statistics["output_transform_lambda"] = transform->lambda();
  return result;
}

}  // namespace cdens

#include "conditional/output_transform_fit.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "core/validate.hpp"

namespace cdens {
namespace {

constexpr int kLambdaSteps = 200;  // λ = 0, 0.01, …, 2

/// The report's leave-one-out NLLs in B(y)'s units moved to y's: minus the mean log B′ over the
/// pairs each one averages (the held-out ones for KCDE's criterion, all for the Gaussian ones).
/// On several ranks `log_derivatives` and the report's held-out pairs are this rank's
/// (FitReport::held_out) and the means those of every rank's.
void add_jacobian(FitReport& report, const Vector& log_derivatives,
                  const Communicator& communicator) {
  const Index local_n = log_derivatives.size();
  double total = log_derivatives.sum();
  communicator.allreduce_sum(&total, 1);
  const double mean = total / static_cast<double>(communicator.sum_counts(local_n));
  double held_out_mean = mean;
  if (report.held_out) {
    HeldOutLogDensities& held_out = *report.held_out;
    const Index first = communicator.sum_counts_below(local_n);
    Vector held = log_derivatives;
    if (!held_out.pairs.empty() || held_out.log_densities.size() != local_n) {
      held.resize(static_cast<Index>(held_out.pairs.size()));
      for (std::size_t p = 0; p < held_out.pairs.size(); ++p) {
        held(static_cast<Index>(p)) = log_derivatives(held_out.pairs[p] - first);
      }
    }
    held_out.log_densities += held;
    std::array<double, 2> sums = {held.sum(), static_cast<double>(held.size())};
    communicator.allreduce_sum(sums.data(), sums.size());
    held_out_mean = sums[0] / sums[1];
  }
  for (const char* key : {"loo_nll", "loo_nll_unmixed"}) {
    if (report.statistics.count(key) != 0) report.statistics[key] -= held_out_mean;
  }
  for (const char* key : {"linear_loo_nll", "trend_loo_nll"}) {
    if (report.statistics.count(key) != 0) report.statistics[key] -= mean;
  }
}

/// The model of B(y) (`model`, fitted to the base transform's outputs) as a model of y: its
/// trend groups through the transform, whose standardisation of B is the fitted model's.
ConditionalMixture transformed_model(const ConditionalMixture& model, const OutputTransform& base,
                                     const Standardizer& y_scaling) {
  const double mean = model.y_scaling().mean()(0);
  const double scale = model.y_scaling().scale()(0);
  const auto transform = std::make_shared<const OutputTransform>(
      base.kind() == OutputTransformKind::log
          ? OutputTransform::log(mean, scale)
          : OutputTransform::yeo_johnson(base.lambda(), y_scaling.mean()(0), y_scaling.scale()(0),
                                         mean, scale));
  std::vector<TrendGroup> groups = model.trend_groups();
  for (TrendGroup& group : groups) group.transform = transform;
  return ConditionalMixture(model.x_scaling(), y_scaling, model.shared_gate(),
                            model.outputs().with_groups(std::move(groups)));
}

/// The model of B(y) = ψ₁((y − m_y)/s_y) = (y − m_y)/s_y (Yeo–Johnson's λ = 1 is the identity) as
/// a model of y: B is affine, so the model of B standardised by (m, s) is the model of y
/// standardised by (m_y + s_y m, s_y s) — the same densities, answered without a transform (by
/// the kernel sums where the model has them, as the candidate without the transform is: auto's
/// pool on 200,000 rows once kept both, weight 0.4 each, the transformed one's log-densities by
/// every component).
ConditionalMixture identity_transformed(const ConditionalMixture& model,
                                        const Standardizer& y_scaling) {
  const double location = y_scaling.mean()(0);
  const double spread = y_scaling.scale()(0);
  const Standardizer composed(Vector::Constant(1, location + spread * model.y_scaling().mean()(0)),
                              Vector::Constant(1, spread * model.y_scaling().scale()(0)));
  return ConditionalMixture(model.x_scaling(), composed, model.shared_gate(), model.outputs());
}

}  // namespace

double yeo_johnson_profile_lambda(const MatrixView& x, const VectorView& v,
                                  const Communicator& communicator) {
  const Index local_n = v.size();
  const auto n = static_cast<double>(communicator.sum_counts(local_n));
  // The design [1, x] with x centred and scaled by its root mean square (over every rank), so
  // that the normal equations are well conditioned; the residuals do not change.
  Vector centre = x.rowwise().sum();
  communicator.allreduce_sum(centre.data(), static_cast<std::size_t>(centre.size()));
  centre /= n;
  Matrix design(x.rows() + 1, local_n);
  design.row(0).setOnes();
  design.bottomRows(x.rows()) = x.colwise() - centre;
  Vector spread = design.bottomRows(x.rows()).rowwise().squaredNorm();
  communicator.allreduce_sum(spread.data(), static_cast<std::size_t>(spread.size()));
  for (Index d = 0; d < x.rows(); ++d) {
    if (spread(d) > 0.0) design.row(d + 1) /= std::sqrt(spread(d) / n);
  }
  Matrix gram = design * design.transpose();
  communicator.allreduce_sum(gram.data(), static_cast<std::size_t>(gram.size()));
  const Eigen::ColPivHouseholderQR<Matrix> normal_equations(gram);
  const auto transformed = [&](int step) {
    const OutputTransform map =
        OutputTransform::yeo_johnson(2.0 * step / kLambdaSteps, 0.0, 1.0, 0.0, 1.0);
    Vector w(local_n);
    for (Index i = 0; i < local_n; ++i) w(i) = map.base(v(i));
    return std::pair{w, map};
  };
  // Two passes of sums over the ranks for every λ at once: Dᵀw_λ, then the residual sum of
  // squares ‖w_λ − D β_λ‖² and Σ log ψ′_λ (no cancellation, unlike wᵀw − bᵀβ).
  Matrix projections(design.rows(), kLambdaSteps + 1);
  for (int step = 0; step <= kLambdaSteps; ++step) {
    projections.col(step) = design * transformed(step).first;
  }
  communicator.allreduce_sum(projections.data(), static_cast<std::size_t>(projections.size()));
  Matrix sums(2, kLambdaSteps + 1);
  for (int step = 0; step <= kLambdaSteps; ++step) {
    const auto [w, map] = transformed(step);
    sums(0, step) =
        (w - design.transpose() * normal_equations.solve(projections.col(step))).squaredNorm();
    double log_derivatives = 0.0;
    for (Index i = 0; i < local_n; ++i) log_derivatives += map.log_derivative(v(i));
    sums(1, step) = log_derivatives;
  }
  communicator.allreduce_sum(sums.data(), static_cast<std::size_t>(sums.size()));
  double best_lambda = 1.0;
  double best = -INFINITY;
  for (int step = 0; step <= kLambdaSteps; ++step) {
    // A λ whose transform overflows on some pair leaves non-finite sums.
    const double residual_variance = sums(0, step) / n;
    if (!std::isfinite(residual_variance) || !std::isfinite(projections.col(step).sum()) ||
        !(residual_variance > 0.0)) {
      continue;
    }
    const double profile = -0.5 * n * std::log(residual_variance) + sums(1, step);
    if (profile > best) {
      best = profile;
      best_lambda = 2.0 * step / kLambdaSteps;
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
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] {
    if (context.weighted()) {
      throw InvalidArgument(name + " does not support sample weights; use y_transform = none");
    }
    if (y.rows() != 1) {
      throw InvalidArgument(
          name + " needs a one-dimensional y; the data have d_y = " + std::to_string(y.rows()));
    }
    require_finite(y, "y");
  });
  // On several ranks each passes its own pairs: the standardisation, the smallest output and
  // the profile likelihood's sums are every rank's.
  const Standardizer y_scaling = Standardizer::fit(y, communicator, "y");
  const Index n = y.cols();
  // B with m = 0 and s = 1; the fitted model's standardisation of B(y) supplies m and s.
  std::optional<OutputTransform> base;
  if (choice == OutputTransformChoice::log) {
    double negative_smallest = n > 0 ? -y.minCoeff() : -INFINITY;
    communicator.allreduce_max(&negative_smallest, 1);
    const double smallest = -negative_smallest;
    if (!(smallest > 0.0)) {
      throw InvalidArgument(name + " needs positive outputs; the smallest y is " +
                            std::to_string(smallest));
    }
    base = OutputTransform::log(0.0, 1.0);
  } else {
    const double location = y_scaling.mean()(0);
    const double spread = y_scaling.scale()(0);
    const Vector v = ((y.row(0).array() - location) / spread).transpose();
    base = OutputTransform::yeo_johnson(yeo_johnson_profile_lambda(x, v, communicator), location,
                                        spread, 0.0, 1.0);
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
  ConditionalFit result{base->kind() == OutputTransformKind::yeo_johnson && base->lambda() == 1.0
                            ? identity_transformed(model, y_scaling)
                            : transformed_model(model, *base, y_scaling),
                        std::move(inner.report)};
  add_jacobian(result.report, log_derivatives, communicator);
  result.report.statistics["output_transform_lambda"] = base->lambda();
  return result;
}

}  // namespace cdens

#include "core/bandwidth_search.hpp"

#include <nlopt.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"
#include "core/random_streams.hpp"

namespace cdens {
namespace {

/// Random starts lie within this distance of the normal-reference start in log h (a factor of
/// e^1.5 ≈ 4.5 either way).
constexpr double kStartSpread = 1.5;
/// A discrete dimension's θ = logit(λ / λ_max) stays in [−12, 12]: λ / λ_max from 6·10⁻⁶ to
/// 1 − 6·10⁻⁶, so neither log λ nor log(1 − λ) meets 0 and the gradient stays finite.
constexpr double kDiscreteParameterBound = 12.0;

void validate(const BandwidthSearchOptions& options) {
  if (options.n_restarts < 0) throw InvalidArgument("n_restarts must not be negative");
  if (!(options.lower > 0.0) || !(options.upper > options.lower) || !std::isfinite(options.upper)) {
    throw InvalidArgument("the bandwidth bounds need 0 < lower < upper < infinity");
  }
  if (options.max_iter < 1) throw InvalidArgument("max_iter must be at least 1");
  if (!(options.relative_tolerance >= 0.0) || !(options.screening_relative_tolerance >= 0.0)) {
    throw InvalidArgument("the relative tolerances must not be negative");
  }
}

struct Objective {
  const BandwidthLikelihood& likelihood;
  nlopt_opt optimizer;
  int evaluations = 0;
  std::exception_ptr failure;
  /// The lowest criterion evaluated and its terms: the point NLopt returns.
  double lowest = HUGE_VAL;
  Vector lowest_terms;
};

double nlopt_objective(unsigned size, const double* theta, double* gradient, void* data) {
  auto& objective = *static_cast<Objective*>(data);
  try {
    ++objective.evaluations;
    const Eigen::Map<const Vector> log_bandwidths(theta, size);
    Vector derivative;
    Vector terms;
    const double value = objective.likelihood.mean_negative_log_likelihood(
        log_bandwidths, gradient != nullptr ? &derivative : nullptr, &terms);
    if (gradient != nullptr) Eigen::Map<Vector>(gradient, size) = derivative;
    if (value < objective.lowest) {
      objective.lowest = value;
      objective.lowest_terms = std::move(terms);
    }
    return value;
  } catch (...) {
    objective.failure = std::current_exception();
    nlopt_force_stop(objective.optimizer);
    return HUGE_VAL;
  }
}

/// Runs L-BFGS on `likelihood` from theta (overwritten by the end point) within [lower, upper]
/// until the criterion changes by less than `relative_tolerance`; returns the criterion there,
/// puts its terms into `terms` and adds the evaluations to `evaluations`.
double run_lbfgs(const BandwidthLikelihood& likelihood, const std::vector<double>& lower_bounds,
                 const std::vector<double>& upper_bounds, const BandwidthSearchOptions& options,
                 double relative_tolerance, Vector& theta, Vector& terms, int& evaluations) {
  const auto size = static_cast<unsigned>(theta.size());
  std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> optimizer(
      nlopt_create(NLOPT_LD_LBFGS, size), &nlopt_destroy);
  if (!optimizer) throw Error("NLopt could not create an L-BFGS optimiser");
  nlopt_set_lower_bounds(optimizer.get(), lower_bounds.data());
  nlopt_set_upper_bounds(optimizer.get(), upper_bounds.data());
  nlopt_set_maxeval(optimizer.get(), options.max_iter);
  nlopt_set_ftol_rel(optimizer.get(), relative_tolerance);
  Objective objective{likelihood, optimizer.get(), 0, nullptr, HUGE_VAL, Vector()};
  nlopt_set_min_objective(optimizer.get(), &nlopt_objective, &objective);
  double value = HUGE_VAL;
  // NLopt's own failures (a line search limited by roundoff and the like) leave the best point
  // it has seen in theta, which is what is wanted.
  nlopt_optimize(optimizer.get(), theta.data(), &value);
  if (objective.failure) std::rethrow_exception(objective.failure);
  evaluations += objective.evaluations;
  // NLopt returns its lowest evaluation; should it ever return another, its terms are computed.
  if (value == objective.lowest) {
    terms = std::move(objective.lowest_terms);
  } else {
    terms = likelihood.negative_log_likelihoods(theta);
  }
  return value;
}

}  // namespace

std::string describe_bandwidth_search(const BandwidthSearchResult& found, const std::string& what,
                                      const std::string& detail) {
  return "leave-one-out likelihood of " + what + ", maximised by L-BFGS (" +
         std::to_string(found.evaluations) + " evaluations from " + std::to_string(found.starts) +
         " starts" + (detail.empty() ? std::string() : ", " + detail) +
         "): a search, not a grid, so no table";
}

double normal_reference_bandwidth(double n_samples, Index dimension) {
  return 1.06 * std::pow(n_samples, -1.0 / (4.0 + dimension));
}

BandwidthSearchResult maximize_bandwidth_likelihood(const BandwidthLikelihood& criterion,
                                                    const BandwidthLikelihood& screening,
                                                    const BandwidthSearchOptions& options,
                                                    const Vector& floors, Progress& progress,
                                                    const Vector& warm_start) {
  validate(options);
  const Index k = criterion.dimension();
  if (screening.dimension() != k || screening.n_samples() != criterion.n_samples()) {
    throw InvalidArgument("the screening criterion must be taken over the same samples");
  }
  if (floors.size() != 0 &&
      (floors.size() != k || !(floors.array() < options.upper).all() || !floors.allFinite())) {
    throw InvalidArgument(
        "the bandwidth floors need one finite value below the upper bound per "
        "dimension");
  }
  // θ = log h of a continuous dimension starts at the normal reference; θ of a discrete one at
  // 0, λ in the middle of its interval.
  std::vector<double> lower(static_cast<std::size_t>(k), std::log(options.lower));
  std::vector<double> upper(static_cast<std::size_t>(k), std::log(options.upper));
  const double log_reference = std::clamp(
      std::log(normal_reference_bandwidth(criterion.effective_samples(), k)), lower[0], upper[0]);
  Vector reference = Vector::Constant(k, log_reference);
  for (Index d = 0; d < k; ++d) {
    if (!criterion.kernels()[static_cast<std::size_t>(d)].is_discrete()) {
      if (floors.size() != 0 && floors(d) > options.lower) {
        lower[static_cast<std::size_t>(d)] = std::log(floors(d));
        reference(d) = std::max(reference(d), lower[static_cast<std::size_t>(d)]);
      }
      continue;
    }
    lower[static_cast<std::size_t>(d)] = -kDiscreteParameterBound;
    upper[static_cast<std::size_t>(d)] = kDiscreteParameterBound;
    reference(d) = 0.0;
  }

  if (warm_start.size() != 0 && warm_start.size() != k) {
    throw InvalidArgument("a warm start of the bandwidth search needs one parameter per dimension");
  }
  BandwidthSearchResult result{Vector(), HUGE_VAL, Vector(), 0, 0, Vector()};
  Vector best;
  Vector best_terms;
  double best_value = HUGE_VAL;
  Rng rng(options.seed, random_stream::kBandwidthStarts);
  const bool warm = warm_start.size() != 0;
  const bool screened = &screening != &criterion && !warm;
  const int runs = warm ? 1 : options.n_restarts + 1;
  // The number of evaluations of a run is the optimiser's business: the runs are the steps.
  progress.begin("bandwidth search, L-BFGS runs", runs + (screened ? 1 : 0));
  if (warm) {
    reference = warm_start;
    for (Index d = 0; d < k; ++d) {
      const auto position = static_cast<std::size_t>(d);
      reference(d) = std::clamp(reference(d), lower[position], upper[position]);
    }
  }
  for (int start = 0; start < runs; ++start) {
    Vector theta = reference;
    if (start > 0) {
      for (Index d = 0; d < k; ++d) {
        const auto position = static_cast<std::size_t>(d);
        theta(d) = std::clamp(reference(d) + kStartSpread * (2.0 * rng.uniform() - 1.0),
                              lower[position], upper[position]);
      }
    }
    Vector terms;
    const double value =
        run_lbfgs(screened ? screening : criterion, lower, upper, options,
                  screened ? options.screening_relative_tolerance : options.relative_tolerance,
                  theta, terms, result.evaluations);
    ++result.starts;
    progress.advance();
    if (value < best_value) {
      best_value = value;
      best = theta;
      best_terms = std::move(terms);
    }
  }
  if (screened) {
    best_value = run_lbfgs(criterion, lower, upper, options, options.relative_tolerance, best,
                           best_terms, result.evaluations);
    progress.advance();
  }
  progress.end();
  if (!std::isfinite(best_value)) {
    throw DataError("the leave-one-out likelihood is not finite at any bandwidth tried");
  }
  result.bandwidths = criterion.smoothing_of(best);
  result.parameters = std::move(best);
  result.mean_negative_log_likelihood = best_value;
  result.negative_log_likelihoods = std::move(best_terms);
  return result;
}

}  // namespace cdens

#include "cdens/conditional/kcde.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "cdens/conditional/linear.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/spelling.hpp"
#include "cdens/core/types.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/declared_columns.hpp"
#include "conditional/gaussian_process_regression.hpp"
#include "conditional/marginal_mixing.hpp"
#include "conditional/output_transform_fit.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "conditional/standardized_linear_fit.hpp"
#include "core/bandwidth_search.hpp"
#include "core/fit_skeleton.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/option_tables.hpp"
#include "model/tied_outputs.hpp"
#include "parallel/samples_of_ranks.hpp"

namespace cdens {
namespace {

/// InvalidArgument unless the options suit the columns (the table's rules are checked before):
/// one fixed bandwidth per column within its kernel's range, continuous outputs for a trend.
void validate_for_columns(const KcdeOptions& options, const ColumnKernels& kernels, Index input_dim,
                          const std::vector<std::string>& names) {
  const auto dimension = static_cast<Index>(kernels.size());
  if (!options.bandwidth.empty()) {
    if (static_cast<Index>(options.bandwidth.size()) != dimension) {
      throw InvalidArgument("bandwidths: " + std::to_string(options.bandwidth.size()) +
                            " values given, the data have " + std::to_string(dimension) +
                            " dimensions (inputs, then outputs)");
    }
    for (Index d = 0; d < dimension; ++d) {
      const ColumnKernel& kernel = kernels[static_cast<std::size_t>(d)];
      const double value = options.bandwidth[static_cast<std::size_t>(d)];
      const std::string name = column_name(d, input_dim, names);
      if (kernel.is_discrete()) {
        kernel.require_smoothing(value, name);
      } else {
        require_kernel_width(value, "the bandwidth of continuous column " + name);
      }
    }
  }
  for (Index d = input_dim; d < dimension; ++d) {
    if (options.trend != KernelTrend::none && kernels[static_cast<std::size_t>(d)].is_discrete()) {
      throw InvalidArgument("trend = " + to_string(options.trend) + " needs continuous outputs: '" +
                            column_name(d, input_dim, names) + "' is declared discrete");
    }
  }
}

/// The held-out pairs of a criterion: all, or `count` of them drawn from random stream `stream`
/// of `seed` — global indices of the n pairs of every rank, drawn on rank 0 (a permutation of
/// all n) and sent to the others.
std::vector<Index> held_out_pairs(Index n, Index count, std::uint64_t seed, std::uint64_t stream,
                                  const Communicator& communicator) {
  if (n <= count) return {};
  std::vector<double> drawn(static_cast<std::size_t>(count));
  std::vector<Index> chosen;
  if (communicator.rank() == 0) {
    Rng rng(seed, stream);
    chosen = choose_centers(n, count, rng);
    std::sort(chosen.begin(), chosen.end());
    std::copy(chosen.begin(), chosen.end(), drawn.begin());
  }
  if (communicator.size() == 1) return chosen;
  communicator.broadcast(drawn.data(), drawn.size(), 0);
  return std::vector<Index>(drawn.begin(), drawn.end());
}

/// The mean of the held-out pairs' `held_values` (those of `held_out`, every pair where it is
/// empty), weighted by the pairs' sample weights when there are any.
double held_out_mean(const Vector& held_values, const std::vector<Index>& held_out,
                     const Vector& weights) {
  if (weights.size() > 0) {
    const Vector held_weights = held_out.empty() ? weights : Vector(weights(held_out));
    return held_values.dot(held_weights) / held_weights.sum();
  }
  return held_values.mean();
}

/// The report's held-out log-densities from those of every rank's `held_out` pairs (global
/// indices; empty: every pair): on several ranks the pairs among this rank's rows, the first of
/// global index `first`, as FitReport::held_out says.
HeldOutLogDensities own_held_out(const std::vector<Index>& held_out, const Vector& log_densities,
                                 Index first, Index local_n, const Communicator& communicator) {
  if (communicator.size() == 1) return {held_out, log_densities};
  if (held_out.empty()) return {{}, log_densities.segment(first, local_n)};
  HeldOutLogDensities own;
  std::vector<double> values;
  for (std::size_t p = 0; p < held_out.size(); ++p) {
    if (held_out[p] < first || held_out[p] >= first + local_n) continue;
    own.pairs.push_back(held_out[p]);
    values.push_back(log_densities(static_cast<Index>(p)));
  }
  own.log_densities = Eigen::Map<const Vector>(values.data(), static_cast<Index>(values.size()));
  return own;
}

/// The Gaussian-process trend in the report: its length scales and noise variance per output
/// (standardised units) and its own Gaussian leave-one-out NLL in the user's units.
void report_trend(const GaussianProcessTrend& trend, double gaussian_loo_nll, FitReport& report) {
  const Index d_y = trend.output_dim();
  for (Index d = 0; d < d_y; ++d) {
    const GaussianProcessOutput& output = trend.outputs()[static_cast<std::size_t>(d)];
    const std::string prefix = d_y > 1 ? "y" + std::to_string(d) + "_" : "";
    for (Index j = 0; j < trend.input_dim(); ++j) {
      report.hyperparameters["trend_length_scale_" + prefix + "x" + std::to_string(j)] =
          output.length_scales(j);
    }
    report.hyperparameters["trend_noise_variance" + (d_y > 1 ? "_y" + std::to_string(d) : "")] =
        output.noise_variance;
  }
  report.statistics["trend_loo_nll"] = gaussian_loo_nll;
}

/// The outputs y′ as recorded, of which the fit sees B(y′) (B with m = 0 and s = 1).
struct TransformedOutput {
  const OutputTransform& base;
  const MatrixView& recorded;
};

/// The lowest bandwidth of every dimension of (x, y) (0: the search's own bound): for a
/// continuous output recorded on a grid of step Δ, a kernel of at least Δ / 2 in y's units
/// (recording_step.hpp). The kernels sit on e = (t − μ) / f, and the trend's factor f is at least
/// its noise spread σ_n, so around a Gaussian-process trend the floor in e is Δ_t / (2 σ_n). Where
/// y is B(y′) for an output transform of the recorded y′, the grid is that of y′, and a kernel of
/// B-width w spans w / B′(y′) in y′: the floor is Δ / 2 times the largest B′ over the training
/// outputs. The step of each gridded output goes into the report. On several ranks (no transform)
/// the grid is that of every rank's outputs.
Vector recording_floors(const MatrixView& y, const ColumnKernels& kernels,
                        const Standardizer& y_scaling, const OutputTrend* trend, double upper,
                        const TransformedOutput* transformed, const Communicator& communicator,
                        FitReport& report) {
  const Index input_dim = static_cast<Index>(kernels.size()) - y.rows();
  Vector floors = Vector::Zero(static_cast<Index>(kernels.size()));
  const auto* process = dynamic_cast<const GaussianProcessTrend*>(trend);
  for (Index d = 0; d < y.rows(); ++d) {
    if (kernels[static_cast<std::size_t>(input_dim + d)].is_discrete()) continue;
    const Vector recorded = (transformed ? transformed->recorded : y).row(d).transpose();
    double largest_slope = 1.0;
    if (transformed) {
      largest_slope = 0.0;
      for (const double value : recorded) {
        largest_slope = std::max(largest_slope, std::exp(transformed->base.log_derivative(value)));
      }
    }
    const double step = recording_step(recorded, communicator);
    if (step == 0.0) continue;
    report.hyperparameters["recording_step_" + dimension_name(input_dim + d, input_dim)] = step;
    double floor = narrowest_width_on_grid(step) * largest_slope / y_scaling.scale()(d);
    if (process) floor /= std::sqrt(process->outputs()[static_cast<std::size_t>(d)].noise_variance);
    floors(input_dim + d) = std::min(floor, 0.5 * upper);
  }
  return floors;
}

/// The warm start of the search `name` in `context` (FitContext::warm_start) with `size`
/// parameters, or none (a fit on other columns gives no warm start).
Vector warm_start_of(const FitContext& context, const std::string& name, Index size) {
  if (context.warm_start == nullptr) return Vector();
  const auto found = context.warm_start->find(name);
  return found == context.warm_start->end() || found->second.size() != size ? Vector()
                                                                            : found->second;
}

/// The leave-one-out comparison with the linear-Gaussian model: its NLL in the report, and a
/// warning where it beats the kernel estimate. On several ranks, of every rank's pairs.
void compare_with_linear_gaussian(const StandardizedPairs& data, const Vector& weights,
                                  const Communicator& communicator, FitReport& report) {
  if (communicator.sum_counts(data.samples.z.cols()) < data.samples.z.rows() + 3) return;
  const double linear = linear_gaussian_loo_nll(data.samples, weights, communicator);
  if (!std::isfinite(linear)) return;
  const double linear_user = linear - data.y_scaling.log_jacobian();
  report.statistics["linear_loo_nll"] = linear_user;
  const double kernel = report.statistics.at("loo_nll");
  if (linear_user < kernel) {
    report.warnings.push_back(
        "a linear-Gaussian model of the same data has a lower leave-one-out NLL (" +
        std::to_string(linear_user) + " against " + std::to_string(kernel) + "): try " +
        message_spelling().method("linear") + ", or " +
        message_spelling().option("trend", "linear"));
  }
}

/// The atom of y a fit models (docs/methods/kcde.md, "Outputs with an atom"), and what its report
/// says of it.
struct AtomChoice {
  std::optional<double> value;
  std::string description;  ///< how it was chosen, for the report's parameter choice
  std::string warning;      ///< an atom found that the options leave unmodelled
};

/// The atom of option `atom` ("auto", "none" or a number's text) for the outputs y of every rank
/// (`y`: this rank's; rows counted by the context's sample weights), with `x_rows` inputs: none
/// for "none"; the value given; or, for "auto",
/// the atom find_output_atom finds in one continuous output, where neither a trend nor a
/// transform is asked for (a warning says that it is not modelled otherwise, or where the rule
/// finds one in an output of several). A collective call unless the option is "none" or an output
/// is declared discrete. InvalidArgument for a value given with several or discrete outputs, a
/// trend or a transform, or fewer than 2 pairs at it or beside it.
AtomChoice choose_atom(Index x_rows, const MatrixView& y, const KcdeOptions& options,
                       const FitContext& context) {
  const Communicator& communicator = context.communicator;
  // The rows' weights over every rank (none without weights), by which the rule counts them.
  const Vector weights =
      context.weighted()
          ? Vector(gather_every_sample(context.sample_weights.transpose(), communicator).row(0))
          : Vector();
  if (options.atom == "none") return {};
  const bool given = options.atom != "auto";
  const auto declared = [&](const std::vector<Index>& columns) {
    return std::any_of(columns.begin(), columns.end(), [&](Index d) { return d >= x_rows; });
  };
  if (declared(options.discrete) || declared(options.ordered)) {
    if (!given) return {};  // a discrete output's levels are masses already
    throw InvalidArgument("atom = " + options.atom +
                          " needs one continuous output (an atom of a discrete y is one of its "
                          "levels already)");
  }
  if (y.rows() != 1) {
    if (given) throw InvalidArgument("atom = " + options.atom + " needs one continuous output");
    // Several outputs: none is modelled, and the report says where the rule finds one.
    const Matrix all = gather_every_sample(y, communicator);
    std::string found;
    for (Index d = 0; d < all.rows(); ++d) {
      const AtomSearch search = find_output_atom(all.row(d).transpose(), weights);
      if (search.found) {
        found +=
            (found.empty() ? "" : "; ") + ("y" + std::to_string(d) + ": ") + search.description();
      }
    }
    if (found.empty()) return {};
    return {std::nullopt, "",
            "an output has an atom (" + found +
                "), which a model of several outputs does not model (one output at a time "
                "would: atom = auto)"};
  }
  const bool plain =
      options.trend == KernelTrend::none && options.y_transform == OutputTransformChoice::none;
  if (given && !plain) {
    throw InvalidArgument("atom = " + options.atom +
                          " needs trend = none and y_transform = none: the point masses at the "
                          "atom do not move with a trend, and a transform maps the continuous "
                          "part only");
  }
  const Vector all = gather_every_sample(y, communicator).row(0).transpose();
  if (plain) {
    AtomDecision decision = decide_output_atom(options.atom, all, weights);
    return {decision.value, std::move(decision.description), ""};
  }
  const AtomSearch search = find_output_atom(all, weights);
  if (!search.found) return {};
  return {std::nullopt, "",
          "y has an atom (" + search.description() + ") that " +
              (options.trend != KernelTrend::none ? "trend = " + to_string(options.trend)
                                                  : std::string("y_transform")) +
              " does not model: with trend = none and y_transform = none it is a point mass "
              "(atom = auto), or turn the search off with atom = none"};
}

/// 1 for each of `y`'s pairs at the atom, 0 for the others; empty without an atom.
Vector atom_flags_of(const MatrixView& y, const AtomChoice& atom) {
  if (!atom.value) return Vector();
  return (y.row(0).array() == *atom.value).cast<double>().transpose();
}

/// The marginal weight chosen by leave-one-out likelihood at the bandwidths, and the mixture's
/// leave-one-out NLL there (standardised units).
struct MarginalChoice {
  double weight;
  double mixed_nll;
  Vector log_mixed;  ///< the mixture's leave-one-out log densities, pair by pair
};

/// ε of marginal_mixing.hpp: the leave-one-out log densities of the estimate (the terms
/// −log p̂_{−i} of its criterion over the `held_out` pairs, empty: all) and of its marginal
/// counterpart (the kernel density of `outputs` over the same pairs, at the output bandwidths)
/// mixed as well as they can be, with ε ≥ 1/n. With sample weights (empty: none) the marginal
/// counterpart weighs its kernels by them, the mean is weighted and n is Kish's effective size.
/// On several ranks `outputs` are this rank's and the marginal's sums run over every rank's. With
/// an atom (`atom_flags`) the marginal counterpart has it too: P̂₀(y = a) is the share of the
/// other pairs at it.
MarginalChoice choose_marginal_weight(const Vector& conditional_terms, const Matrix& outputs,
                                      const ColumnKernels& output_kernels,
                                      const std::vector<Index>& held_out, const Vector& bandwidths,
                                      int threads, const Vector& weights,
                                      const Communicator& communicator, const Vector& atom_flags) {
  const Vector log_conditional = -conditional_terms;
  const BandwidthLikelihood marginal(outputs, 0, held_out, threads, output_kernels, weights,
                                     communicator, atom_flags);
  const Vector log_marginal =
      -marginal.negative_log_likelihoods(marginal.parameters_of(bandwidths.tail(outputs.rows())));
  const Vector held_weights = marginal.held_out_weights();
  const double weight = best_mixing_weight(log_conditional, log_marginal,
                                           1.0 / marginal.effective_samples(), held_weights);
  return {weight,
          mixed_negative_log_likelihood(log_conditional, log_marginal, weight, held_weights),
          mixed_log_densities(log_conditional, log_marginal, weight)};
}

/// log N(e_i; 0, I) of the held-out pairs' residuals (columns of `held`): the leave-one-out log
/// densities of the Gaussian process's own predictive distribution.
Vector process_log_densities(const Matrix& held) {
  return (-0.5 *
          (held.colwise().squaredNorm().array() + static_cast<double>(held.rows()) * kLog2Pi))
      .transpose()
      .matrix();
}

}  // namespace

std::string to_string(KernelTrend trend) {
  switch (trend) {
    case KernelTrend::linear:
      return "linear";
    case KernelTrend::gaussian_process:
      return "gp";
    case KernelTrend::none:
      break;
  }
  return "none";
}

KernelTrend parse_kernel_trend(const std::string& name) {
  for (const auto trend : {KernelTrend::none, KernelTrend::linear, KernelTrend::gaussian_process}) {
    if (name == to_string(trend)) return trend;
  }
  throw InvalidArgument("unknown trend '" + name + "' (none, linear or gp)");
}

namespace {

/// The fit of (x, y), where y is B(y′) of the recorded outputs y′ when `transformed` is given,
/// with the atom `atom` (of y itself: no atom comes with a transform).
ConditionalFit fit_kernels(const MatrixView& x, const MatrixView& y, const KcdeOptions& options,
                           const FitContext& context, const TransformedOutput* transformed,
                           const AtomChoice& atom) {
  return timed_fit<ConditionalMixture>("kcde", [&](FitReport& report) {
    // Each rank passes its own pairs; what decides the model — the standardisation, the levels
    // of discrete columns, the held-out pairs, the bandwidths — is computed over every rank's, so
    // any number of ranks fits the same model (docs/distributed.md).
    const Communicator& communicator = context.communicator;
    const bool sharded = communicator.size() > 1;
    const Index input_dim = x.rows();
    const Index dimension = x.rows() + y.rows();
    agree_on_errors(communicator, [&] { require_training_shard(x, y, communicator); });
    require_equal_on_every_rank(communicator,
                                {static_cast<double>(x.rows()), static_cast<double>(y.rows())},
                                "the dimensions of x and y");
    const ColumnKernels kernels = declared_column_kernels(x, y, options.discrete, options.ordered,
                                                          context.column_names, communicator);
    validate_for_columns(options, kernels, input_dim, context.column_names);
    const StandardizedPairs data = standardize_continuous_columns(x, y, kernels, context);
    const ColumnKernels input_kernels(kernels.begin(), kernels.begin() + input_dim);
    const ColumnKernels output_kernels(kernels.begin() + input_dim, kernels.end());
    const Index local_n = data.samples.z.cols();
    const Index n = communicator.sum_counts(local_n);
    const Vector& weights = context.sample_weights;
    if (context.weighted() && options.trend == KernelTrend::gaussian_process) {
      throw InvalidArgument(
          "trend = gp does not support sample weights (its Gaussian-process fit is unweighted); "
          "use trend = none or linear");
    }
    // The outputs the kernels are centred on: y itself, its residuals around the line, or the
    // standardised leave-one-out residuals of the Gaussian-process trend, whose log-scales are
    // the Jacobian of each pair's residual.
    std::shared_ptr<const OutputTrend> trend;
    Matrix outputs = data.samples.t;
    Vector residual_log_scales = Vector::Zero(local_n);
    if (options.trend != KernelTrend::none && n < input_dim + 3) {
      throw InvalidArgument("trend = " + to_string(options.trend) +
                            " needs at least d_x + 3 pairs");
    }
    if (options.trend == KernelTrend::linear) {
      const Matrix slopes =
          least_squares_coefficients(data.samples, weights, communicator).rightCols(input_dim);
      outputs -= slopes * data.samples.z;
      trend = std::make_shared<const LinearTrend>(Vector::Zero(y.rows()), slopes);
    } else if (options.trend == KernelTrend::gaussian_process) {
      context.progress.begin("Gaussian-process trend", 1);
      GaussianProcessTrendOptions trend_options;
      trend_options.max_basis = options.trend_basis;
      trend_options.seed = options.search.seed;
      for (Index d = 0; d < y.rows(); ++d) {
        trend_options.warm_starts.push_back(
            warm_start_of(context, "trend_y" + std::to_string(d), input_dim + 2));
      }
      GaussianProcessTrendFit fitted =
          fit_gaussian_process_trend(data.samples, trend_options, context.threads, communicator);
      for (Index d = 0; d < y.rows(); ++d) {
        report.search_ends["trend_y" + std::to_string(d)] =
            fitted.hyperparameters[static_cast<std::size_t>(d)];
      }
      context.progress.advance();
      context.progress.end();
      outputs = std::move(fitted.residuals);
      residual_log_scales = std::move(fitted.log_scales);
      report_trend(*fitted.trend, fitted.gaussian_loo_nll - data.y_scaling.log_jacobian(), report);
      report.statistics["trend_evaluations"] = fitted.evaluations;
      trend = std::move(fitted.trend);
    }

    report.warnings =
        undeclared_discrete_warnings(x, y, kernels, context.column_names, communicator);
    if (!atom.warning.empty()) report.warnings.push_back(atom.warning);
    for (std::string& warning : many_levels_warnings(kernels, n, input_dim, context.column_names)) {
      report.warnings.push_back(std::move(warning));
    }
    const bool search = options.bandwidth.empty();
    const Vector output_floors =
        recording_floors(y, kernels, data.y_scaling, trend.get(), options.search.upper, transformed,
                         communicator, report);
    const bool mix = options.marginal_mixing == MarginalMixing::loo;
    Matrix stacked(dimension, local_n);
    stacked << data.samples.z, outputs;
    // On several ranks exact leave-one-out holds out every pair too: each rank's pairs are taken
    // against every pair (sent to all ranks; n is at most exact_limit).
    const std::vector<Index> held_out =
        n <= options.exact_limit
            ? std::vector<Index>{}
            : held_out_pairs(n, options.subsample_held_out, options.search.seed,
                             random_stream::kSubsampledHeldOut, communicator);
    // The held-out residuals' log-scales (of every rank's held-out pairs) and their mean
    // Jacobian: 0 but around the Gaussian-process trend.
    const Vector held_log_scales =
        options.trend == KernelTrend::gaussian_process
            ? Vector(
                  samples_at_global_indices(residual_log_scales.transpose(), held_out, communicator)
                      .transpose())
            : Vector();
    const double residual_jacobian = options.trend == KernelTrend::gaussian_process
                                         ? held_out_mean(held_log_scales, held_out, weights)
                                         : 0.0;
    // The pairs at the atom (empty without one), of this rank and of every rank's held-out
    // pairs; a held-out term at the atom is a probability, which takes no Jacobian of y's
    // standardisation.
    const Vector atom_flags = atom_flags_of(y, atom);
    const Vector held_beside_atom =
        atom.value
            ? Vector(1.0 - samples_at_global_indices(atom_flags.transpose(), held_out, communicator)
                               .row(0)
                               .transpose()
                               .array())
            : Vector();
    const double output_jacobian =
        data.y_scaling.log_jacobian() *
        (atom.value ? held_out_mean(held_beside_atom, held_out, weights) : 1.0);
    std::optional<BandwidthLikelihood> likelihood;
    if (search || mix) {
      likelihood.emplace(stacked, input_dim, held_out, context.threads, kernels, weights,
                         communicator, atom_flags);
    }
    Vector bandwidths(dimension);
    Vector conditional_terms;  // −log p̂_{−i} at the bandwidths
    if (!search) {
      bandwidths = Eigen::Map<const Vector>(options.bandwidth.data(), dimension);
      report.parameter_choice = "none: the bandwidths are given";
    } else {
      std::optional<BandwidthLikelihood> screening;
      if (options.screening_held_out < likelihood->n_held_out()) {
        screening.emplace(stacked, input_dim,
                          held_out_pairs(n, options.screening_held_out, options.search.seed,
                                         random_stream::kScreeningHeldOut, communicator),
                          context.threads, kernels, weights, communicator, atom_flags);
      }
      const BandwidthSearchResult found = maximize_bandwidth_likelihood(
          *likelihood, screening ? *screening : *likelihood, options.search, output_floors,
          context.progress, warm_start_of(context, "bandwidths", dimension));
      bandwidths = found.bandwidths;
      report.search_ends["bandwidths"] = found.parameters;
      conditional_terms = found.negative_log_likelihoods;
      report.statistics["loo_nll"] =
          found.mean_negative_log_likelihood + residual_jacobian - output_jacobian;
      report.statistics["evaluations"] = found.evaluations;
      report.statistics["starts"] = found.starts;
      report.statistics["held_out"] = static_cast<double>(likelihood->n_held_out());
      report.parameter_choice = describe_bandwidth_search(
          found, "the bandwidths",
          held_out.empty()
              ? std::string()
              : "over a subsample of " + std::to_string(held_out.size()) + " held-out pairs");
      for (Index d = 0; d < dimension; ++d) {
        // λ of a discrete column may take any value of its interval: 0 counts equal values only.
        if (kernels[static_cast<std::size_t>(d)].is_discrete()) continue;
        const std::string name = "bandwidth of " + column_name(d, input_dim, context.column_names);
        if (output_floors(d) > 0.0 && bandwidths(d) <= output_floors(d) * (1.0 + 1e-6)) {
          report.warnings.push_back(name +
                                    " is at its floor, half the recording step of the "
                                    "output: the likelihood would shrink it to spikes on "
                                    "the recorded values");
        } else if (bandwidths(d) <= options.search.lower * (1.0 + 1e-6)) {
          report.warnings.push_back(
              name +
              " is at the lower bound of the search: the column may have ties (repeated "
              "values) that make the likelihood grow without limit as it shrinks");
        } else if (d >= input_dim && bandwidths(d) >= options.search.upper * (1.0 - 1e-6)) {
          report.warnings.push_back(name + " is at the upper bound of the search");
        }
      }
    }
    double marginal_weight = 0.0;
    Vector log_kernel_terms;  // log p̃_{−i}: the estimate's leave-one-out terms, mixed
    if (mix) {
      if (!search) {
        conditional_terms =
            likelihood->negative_log_likelihoods(likelihood->parameters_of(bandwidths));
      }
      const MarginalChoice choice =
          choose_marginal_weight(conditional_terms, outputs, output_kernels, held_out, bandwidths,
                                 context.threads, weights, communicator, atom_flags);
      marginal_weight = choice.weight;
      log_kernel_terms = choice.log_mixed;
      report.hyperparameters["marginal_weight"] = marginal_weight;
      report.parameter_choice += "; marginal_weight by the same leave-one-out likelihood";
      if (search) {
        report.statistics["loo_nll_unmixed"] = report.statistics.at("loo_nll");
        report.statistics["loo_nll"] = choice.mixed_nll + residual_jacobian - output_jacobian;
      }
    }
    // Around the Gaussian-process trend, the process's own predictive Gaussian N(e; 0, I) joins as
    // a component of weight δ ≥ 1/n chosen by leave-one-out likelihood: a residual beyond every
    // kernel then scores as the process scores it (docs/methods/kcde.md).
    double process_weight = 0.0;
    if (options.trend == KernelTrend::gaussian_process && likelihood) {
      if (log_kernel_terms.size() == 0) {
        if (conditional_terms.size() == 0) {
          conditional_terms =
              likelihood->negative_log_likelihoods(likelihood->parameters_of(bandwidths));
        }
        log_kernel_terms = -conditional_terms;
      }
      const Vector log_process =
          process_log_densities(samples_at_global_indices(outputs, held_out, communicator));
      process_weight =
          best_mixing_weight(log_kernel_terms, log_process, 1.0 / static_cast<double>(n));
      report.hyperparameters["trend_component_weight"] = process_weight;
      if (search) {
        report.statistics["loo_nll"] =
            mixed_negative_log_likelihood(log_kernel_terms, log_process, process_weight) +
            residual_jacobian - data.y_scaling.log_jacobian();
      }
      log_kernel_terms = mixed_log_densities(log_kernel_terms, log_process, process_weight);
    }
    // The model's leave-one-out log densities in y's units, where the criterion gave its terms:
    // what auto stacks its candidates on.
    if (log_kernel_terms.size() == 0) log_kernel_terms = -conditional_terms;
    if (log_kernel_terms.size() != 0) {
      // The residuals' log-scales: 0 but around the Gaussian-process trend.
      const Vector log_scales = options.trend == KernelTrend::gaussian_process
                                    ? held_log_scales
                                    : Vector(Vector::Zero(log_kernel_terms.size()));
      const Vector jacobians =
          atom.value
              ? Vector(data.y_scaling.log_jacobian() * held_beside_atom)
              : Vector(Vector::Constant(log_kernel_terms.size(), data.y_scaling.log_jacobian()));
      report.held_out = own_held_out(held_out, log_kernel_terms - log_scales + jacobians,
                                     communicator.sum_counts_below(local_n), local_n, communicator);
    }
    // A probability mass of a discrete y (or of its atom) is not comparable with a Gaussian
    // density of it. A fit that only scores held-out rows has no use for the comparison.
    if (search && !any_discrete(output_kernels) && !atom.value && !context.held_out_scoring) {
      compare_with_linear_gaussian(data, weights, communicator, report);
    }
    // The values of the bandwidth option, one per column (a discrete column's λ among them).
    for (Index d = 0; d < dimension; ++d) {
      report.hyperparameters["bandwidth_" + dimension_name(d, input_dim)] = bandwidths(d);
    }
    report.statistics["n_train"] = static_cast<double>(n);
    if (options.trend == KernelTrend::linear) report.statistics["linear_trend"] = 1.0;
    if (options.trend == KernelTrend::gaussian_process) {
      report.statistics["gaussian_process_trend"] = 1.0;
    }

    // The model keeps every pair. Each rank keeps its own when the caller writes the model from
    // the ranks together (a rank without pairs has no model of its own: then, when the caller
    // asks for the model of every pair, and around the Gaussian-process trend, whose broad
    // component the ranks' writer does not take, each rank receives every rank's pairs;
    // docs/distributed.md, "Memory").
    // An atom's components are listed by global index, so its model gathers every pair too.
    const bool keep_own_rows = sharded && context.rows_stay_on_ranks && process_weight == 0.0 &&
                               !atom.value && communicator.sum_counts(local_n == 0 ? 1 : 0) == 0;
    const Index model_rows = keep_own_rows ? local_n : n;
    if (sharded && !keep_own_rows) outputs = gather_every_sample(outputs, communicator);
    report.rows_of_this_rank = keep_own_rows;
    const Vector output_bandwidths = bandwidths.tail(y.rows());
    Matrix scales = output_bandwidths.replicate(1, model_rows);
    std::shared_ptr<const ConditionalGate> gate = std::make_shared<const ProductKernelGate>(
        keep_own_rows ? data.samples.z : gather_every_sample(data.samples.z, communicator),
        bandwidths.head(input_dim), input_kernels, marginal_weight, weights);
    if (process_weight > 0.0) {
      // The process's component: N(e; 0, I) behind weight δ.
      outputs.conservativeResize(Eigen::NoChange, model_rows + 1);
      outputs.col(model_rows).setZero();
      scales.conservativeResize(Eigen::NoChange, model_rows + 1);
      scales.col(model_rows) = output_floors.tail(y.rows()).cwiseMax(1.0);
      gate = std::make_shared<const BroadComponentGate>(std::move(gate), process_weight);
    }
    MixtureOutputs mixture_outputs = MixtureOutputs::gaussian(std::move(outputs), std::move(scales))
                                         .with_trend(std::move(trend))
                                         .with_output_kernels(output_kernels);
    if (atom.value) {
      // The pairs at the atom are its point masses, by their index among every rank's pairs.
      const Vector all_flags =
          sharded ? Vector(gather_every_sample(atom_flags.transpose(), communicator).row(0))
                  : atom_flags;
      OutputAtom output_atom{*atom.value, {}};
      for (Index k = 0; k < all_flags.size(); ++k) {
        if (all_flags(k) == 1.0) output_atom.components.push_back(k);
      }
      report.hyperparameters["atom"] = *atom.value;
      // The share of the rows at the atom (of their weight, where the pairs are weighted).
      report.statistics["atom_share"] = weights.size() == all_flags.size()
                                            ? all_flags.dot(weights) / weights.sum()
                                            : static_cast<double>(output_atom.components.size()) /
                                                  static_cast<double>(all_flags.size());
      report.parameter_choice += "; " + atom.description;
      mixture_outputs = std::move(mixture_outputs).with_atom(std::move(output_atom));
    }
    ConditionalMixture model(data.x_scaling, data.y_scaling, std::move(gate),
                             std::move(mixture_outputs));
    return model;
  });
}

}  // namespace

ConditionalFit fit_kcde(const MatrixView& x, const MatrixView& y, const KcdeOptions& options,
                        const FitContext& context) {
  kcde_option_table().validate(options);
  // A transform maps a continuous y; a discrete one's levels would move (as a trend's refusal).
  for (const std::vector<Index>* declared : {&options.discrete, &options.ordered}) {
    for (const Index d : *declared) {
      if (options.y_transform == OutputTransformChoice::none || d < x.rows()) continue;
      throw InvalidArgument(
          "y_transform = " + to_string(options.y_transform) + " needs continuous outputs: '" +
          column_name(d, x.rows(), context.column_names) + "' is declared discrete");
    }
  }
  // The atom of y as recorded (the same on every rank; an error on one stops all).
  AtomChoice atom;
  agree_on_errors(context.communicator, [&] { atom = choose_atom(x.rows(), y, options, context); });
  if (options.y_transform == OutputTransformChoice::none) {
    return fit_kernels(x, y, options, context, nullptr, atom);
  }
  return fit_on_transformed_output(x, y, options.y_transform, context,
                                   [&](const MatrixView& transformed, const OutputTransform& base) {
                                     const TransformedOutput output{base, y};
                                     return fit_kernels(x, transformed, options, context, &output,
                                                        atom);
                                   });
}

}  // namespace cdens

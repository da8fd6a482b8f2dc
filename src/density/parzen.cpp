#include "cdens/density/parzen.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cdens/core/cross_validation.hpp"
#include "cdens/core/fit_context.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "core/bandwidth_search.hpp"
#include "core/fit_skeleton.hpp"
#include "core/log_space.hpp"
#include "core/sample_weights.hpp"
#include "core/validate.hpp"
#include "density/density_scaling.hpp"
#include "density/fixed_kernels.hpp"
#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/option_tables.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Samples are scored in blocks of this many, one block per task, whatever the thread count.
constexpr Index kSampleBlock = 256;

/// One width per dimension by the leave-one-out likelihood (BandwidthLikelihood of all
/// dimensions, no conditioning ones, weighted by the sample weights unless they are empty): the
/// model, its choice recorded in `report`.
GaussianMixture per_dimension_model(Standardizer scaling, const Matrix& z, int threads,
                                    const Vector& weights, FitReport& report, Progress& progress) {
  const Index n = z.cols();
  const BandwidthLikelihood likelihood(z, 0, {}, threads, {}, weights);
  const BandwidthSearchResult found =
      maximize_bandwidth_likelihood(likelihood, likelihood, {}, Vector(), progress);
  report.parameter_choice = describe_bandwidth_search(found, "the widths, one per dimension");
  for (Index d = 0; d < z.rows(); ++d) {
    report.hyperparameters["bandwidth_" + std::to_string(d)] = found.bandwidths(d);
  }
  report.statistics["loo_nll"] = found.mean_negative_log_likelihood - scaling.log_jacobian();
  report.statistics["evaluations"] = found.evaluations;
  report.statistics["n_train"] = static_cast<double>(n);
  report.statistics["n_kernels"] = static_cast<double>(n);
  report.statistics["dimension"] = static_cast<double>(z.rows());
  return GaussianMixture(std::move(scaling),
                         weights.size() > 0
                             ? Vector(weights / weights.sum())
                             : Vector(Vector::Constant(n, 1.0 / static_cast<double>(n))),
                         z, found.bandwidths.replicate(1, n));
}

/// The per-sample terms of parzen_criterion for sample i of weight c_i, from the squared
/// distances d_ij to every sample (d_ii = +∞), the log-weights, the weight Σ_{j≠i} c_j of the
/// others and the total weight, for every width: the criterion is Σ_i c_i term_i / Σ c. With
/// p̂_{−i}(z) = Σ_{j≠i} c_j G_γ(z, z_j) / Σ_{j≠i} c_j — sample i left out with all its weight —
/// the likelihood's term is −log p̂_{−i}(z_i) and the least-squares one
/// Σ_j β_j G_{√2γ}(z_i, z_j) − 2 p̂_{−i}(z_i) with β_j = c_j / Σc (eqs. 14 and 17 weighted;
/// with every c_j = 1 both are the unweighted terms).
void weighted_terms(const Vector& distances, const Vector& log_weights, const Vector& weights,
                    double others_weight, double total_weight, const std::vector<double>& widths,
                    ParzenCriterion criterion, double dimension, Eigen::Ref<Vector> terms) {
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const double gamma = widths[w];
    const double scale = 0.5 / (gamma * gamma);
    const Index k = static_cast<Index>(w);
    const double log_cross_norm = -0.5 * dimension * (kLog2Pi + 2.0 * std::log(gamma));
    const double log_leave_one_out = log_sum_exp((log_weights - scale * distances).eval()) -
                                     std::log(others_weight) + log_cross_norm;
    if (criterion == ParzenCriterion::leave_one_out_likelihood) {
      terms(k) = -log_leave_one_out;
      continue;
    }
    // The j = i term of the ∫ p̂² sum is exp(0) at d_ii = 0, which `distances` holds as +∞.
    const Eigen::ArrayXd square_kernels = (-0.5 * scale * distances.array()).exp();
    const double self_weight = total_weight - others_weight;
    const double square_sum = (square_kernels * weights.array()).sum() + self_weight;
    const double square_norm =
        std::exp(-0.5 * dimension * (kLog2Pi + std::log(2.0 * gamma * gamma)));
    terms(k) = square_norm * square_sum / total_weight - 2.0 * std::exp(log_leave_one_out);
  }
}

}  // namespace

std::string to_string(ParzenCriterion criterion) {
  return criterion == ParzenCriterion::least_squares ? "least_squares" : "loo_likelihood";
}

ParzenCriterion parse_parzen_criterion(const std::string& name) {
  for (const auto criterion :
       {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares}) {
    if (name == to_string(criterion)) return criterion;
  }
  throw InvalidArgument("the Parzen criterion must be loo_likelihood or least_squares, got '" +
                        name + "'");
}

namespace {

/// parzen_criterion, each block of samples done advancing `progress` by its samples.
Vector criterion_with_progress(const MatrixView& z, const std::vector<double>& widths,
                               ParzenCriterion criterion, int threads, Matrix* per_sample,
                               const Vector& weights, Progress& progress) {
  require_positive_values(widths, "Parzen widths");
  const Index n = z.cols();
  if (n < 2) throw InvalidArgument("leave-one-out needs at least 2 samples");
  const bool weighted = weights.size() > 0;
  if (weighted) validate_sample_weights(weights, n, "Parzen sample weights");
  const double total_weight = weighted ? weights.sum() : 0.0;
  const Vector log_weights = weights.array().log().matrix();
  const Index w_count = static_cast<Index>(widths.size());
  const double dimension = static_cast<double>(z.rows());
  const double n_d = static_cast<double>(n);
  Vector exponent_scales(w_count);  // 1 / (2 γ²)
  for (Index w = 0; w < w_count; ++w) exponent_scales(w) = 0.5 / (widths[w] * widths[w]);

  Matrix terms(w_count, n);
  const Index blocks = (n + kSampleBlock - 1) / kSampleBlock;
  parallel_for(resolve_threads(threads), blocks, [&](Index block) {
    const Index start = block * kSampleBlock;
    const Index size = std::min(kSampleBlock, n - start);
    Matrix distances(n, size);  // ‖z_j − z_i‖² for every j and the block's i
    squared_distances(z, z.middleCols(start, size), distances);
    Vector column(n);
    Vector log_sums(w_count);
    for (Index c = 0; c < size; ++c) {
      const Index i = start + c;
      column = distances.col(c);
      column(i) = INFINITY;  // leave z_i out of p̂_{−i}
      if (weighted) {
        weighted_terms(column, log_weights, weights, total_weight - weights(i), total_weight,
                       widths, criterion, dimension, terms.col(i));
      } else if (criterion == ParzenCriterion::leave_one_out_likelihood) {
        // log p̂_{−i}(z_i) = log Σ_{j≠i} exp(−d_ij / 2γ²) − log(N − 1) − (d/2) log(2πγ²).
        log_sum_exp_scaled(column, exponent_scales, log_sums);
        for (Index w = 0; w < w_count; ++w) {
          const double gamma = widths[static_cast<std::size_t>(w)];
          terms(w, i) = -(log_sums(w) - std::log(n_d - 1.0) -
                          0.5 * dimension * (kLog2Pi + 2.0 * std::log(gamma)));
        }
      } else {
        // ∫ p̂² = (1/N²) Σ_i Σ_j N(z_i; z_j, 2γ² I) (eq. 14) and the leave-one-out cross term
        // (2/N) Σ_i p̂_{−i}(z_i) (eq. 17): sample i contributes
        // (1/N) Σ_j G_{√2γ}(z_i, z_j) − (2/(N−1)) Σ_{j≠i} G_γ(z_i, z_j).
        for (Index w = 0; w < w_count; ++w) {
          const double gamma = widths[static_cast<std::size_t>(w)];
          const double scale = exponent_scales(w);
          double square_sum = 1.0;  // the j = i term of the ∫ p̂² sum, exp(0)
          double cross_sum = 0.0;
          for (Index j = 0; j < n; ++j) {
            if (j == i) continue;
            cross_sum += std::exp(-scale * column(j));
            square_sum += std::exp(-0.5 * scale * column(j));
          }
          const double square_norm =
              std::exp(-0.5 * dimension * (kLog2Pi + std::log(2.0 * gamma * gamma)));
          const double cross_norm = std::exp(-0.5 * dimension * (kLog2Pi + 2.0 * std::log(gamma)));
          terms(w, i) = square_norm * square_sum / n_d - 2.0 * cross_norm * cross_sum / (n_d - 1.0);
        }
      }
    }
    progress.advance(size);
  });
  Vector result =
      weighted ? Vector(terms * weights / total_weight) : Vector(terms.rowwise().mean());
  if (per_sample != nullptr) *per_sample = std::move(terms);
  return result;
}

/// The golden-section steps that shrink a bracket of `span` (in log γ) below `tolerance`, each
/// one evaluation of the criterion: the loop of fit_parzen, counted ahead for its progress.
int golden_section_steps(double span, double tolerance, double ratio) {
  int steps = 0;
  for (; span > tolerance; span *= ratio) ++steps;
  return steps;
}

}  // namespace

Vector parzen_criterion(const MatrixView& z, const std::vector<double>& widths,
                        ParzenCriterion criterion, int threads, Matrix* per_sample,
                        const Vector& weights) {
  return criterion_with_progress(z, widths, criterion, threads, per_sample, weights,
                                 silent_progress());
}

DensityFit fit_parzen(const MatrixView& x, const ParzenOptions& options,
                      const FitContext& context) {
  return timed_fit<GaussianMixture>("parzen", [&](FitReport& report) {
    parzen_option_table().validate(options);
    Standardizer scaling = density_scaling(x, options.standardize, context);
    const Matrix z = scaling.transform(x);
    const Index n = z.cols();
    const Vector& weights = context.sample_weights;
    if (options.per_dimension) {
      return per_dimension_model(std::move(scaling), z, context.threads, weights, report,
                                 context.progress);
    }

    report.statistics["n_train"] = static_cast<double>(n);
    report.statistics["n_kernels"] = static_cast<double>(n);
    report.statistics["dimension"] = static_cast<double>(z.rows());
    // The model of width γ; called once, at either return. β_k = c_k / Σc with sample weights.
    const auto model_of_width = [&](double gamma) {
      report.hyperparameters["bandwidth"] = gamma;
      return GaussianMixture(std::move(scaling),
                             context.weighted()
                                 ? Vector(weights / weights.sum())
                                 : Vector(Vector::Constant(n, 1.0 / static_cast<double>(n))),
                             z, Matrix::Constant(z.rows(), n, gamma));
    };
    // The standard error of a criterion from its per-sample terms: of their mean, or of their
    // weighted mean with Kish's effective size.
    const double effective_n =
        context.weighted() ? effective_sample_size(weights) : static_cast<double>(n);
    // One fixed width: nothing to choose, so no O(n²) criterion is computed (issue 24).
    if (options.bandwidth.size() == 1) return model_of_width(options.bandwidth[0]);

    // Every width scored, with the mean and standard error of its per-sample terms.
    std::vector<double> scored;
    std::vector<double> losses;
    std::vector<double> errors;
    const auto score = [&](const std::vector<double>& widths, Progress& progress) {
      Matrix terms;
      const Vector values = criterion_with_progress(z, widths, options.criterion, context.threads,
                                                    &terms, weights, progress);
      for (std::size_t w = 0; w < widths.size(); ++w) {
        const auto row = terms.row(static_cast<Index>(w)).array();
        const double spread =
            context.weighted()
                ? weighted_standard_deviation(row.transpose().matrix(), weights)
                : std::sqrt((row - values(static_cast<Index>(w))).square().sum() / (n - 1.0));
        scored.push_back(widths[w]);
        losses.push_back(values(static_cast<Index>(w)));
        errors.push_back(spread / std::sqrt(effective_n));
      }
      return values;
    };

    const bool search = options.bandwidth.empty();
    const std::vector<double> grid =
        search ? log_spaced(options.search_lower, options.search_upper, options.search_points)
               : options.bandwidth;
    // One pass over every pair of samples scores the whole grid: its steps are the samples.
    context.progress.begin("width grid of " + std::to_string(grid.size()) + ", samples", n);
    const Vector grid_values = score(grid, context.progress);
    context.progress.end();
    const Index grid_best = best_candidate(grid_values);
    if (grid_best < 0) {
      throw DataError("the Parzen criterion is not finite for any candidate width");
    }
    if (search) {
      // Golden-section search on log γ between the neighbours of the best grid point; the
      // criterion is smooth in γ and, between neighbours of a grid minimum, close to unimodal.
      // Each evaluation a pass over every pair of samples: the steps of the stage.
      const auto at = [&](double log_gamma) {
        const double value = score({std::exp(log_gamma)}, silent_progress())(0);
        context.progress.advance();
        return value;
      };
      const std::size_t b = static_cast<std::size_t>(grid_best);
      double low = std::log(grid[b > 0 ? b - 1 : b]);
      double high = std::log(grid[std::min(b + 1, grid.size() - 1)]);
      const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
      context.progress.begin("width refinement, golden-section passes",
                             2 + golden_section_steps(high - low, options.refine_tolerance, ratio));
      double left = high - ratio * (high - low);
      double right = low + ratio * (high - low);
      double f_left = at(left);
      double f_right = at(right);
      while (high - low > options.refine_tolerance) {
        if (f_left <= f_right) {
          high = right;
          right = left;
          f_right = f_left;
          left = high - ratio * (high - low);
          f_left = at(left);
        } else {
          low = left;
          left = right;
          f_left = f_right;
          right = low + ratio * (high - low);
          f_right = at(right);
        }
      }
      context.progress.end();
    }

    CvTable table;
    table.parameter_names = {"bandwidth"};
    table.candidates = Eigen::Map<const Vector>(scored.data(), static_cast<Index>(scored.size()));
    table.mean_loss = Eigen::Map<const Vector>(losses.data(), static_cast<Index>(losses.size()));
    table.standard_error =
        Eigen::Map<const Vector>(errors.data(), static_cast<Index>(errors.size()));
    table.loss = to_string(options.criterion);
    table.best = best_candidate(table.mean_loss);
    const double gamma = scored[static_cast<std::size_t>(table.best)];

    if (at_grid_edge(grid, grid[static_cast<std::size_t>(grid_best)])) {
      report.warnings.push_back("the chosen width lies at the edge of its grid");
    }
    report.cross_validation = std::move(table);
    return model_of_width(gamma);
  });
}

double parzen_target_width(const MatrixView& x, double requested, bool standardize, int threads,
                           Progress& progress, const Vector& weights) {
  if (requested > 0.0) return requested;
  ParzenOptions options;
  options.standardize = standardize;
  FitContext context{local_communicator(), progress};
  context.threads = threads;
  context.sample_weights = weights;
  return fit_parzen(x, options, context).report.hyperparameters.at("bandwidth");
}

}  // namespace cdens

#include "cdens/evaluation/scores.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cdens/core/types.hpp"
#include "core/validate.hpp"
#include "evaluation/draw_blocks.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

constexpr double kInverseSqrt2Pi = 0.39894228040143267794;

/// E|N(m, v)| = 2 √v φ(m/√v) + m (2 Φ(m/√v) − 1), with 2 Φ(z) − 1 = erf(z/√2); |m| for v = 0
/// (a point mass: an atom's component, or two of them).
double absolute_normal_mean(double m, double variance) {
  if (variance == 0.0) return std::abs(m);
  const double sd = std::sqrt(variance);
  const double z = m / sd;
  return 2.0 * sd * kInverseSqrt2Pi * std::exp(-0.5 * z * z) + m * std::erf(z / std::sqrt(2.0));
}

void require_scalar(const ConditionalMixture& model, const char* score) {
  if (model.output_dim() != 1) {
    throw InvalidArgument(std::string(score) + " needs a one-dimensional y; this model has d_y = " +
                          std::to_string(model.output_dim()));
  }
}

/// The closed forms below are those of Gaussian components: a y declared discrete (a KCDE
/// probability mass function) is refused.
void require_gaussian_outputs(const ConditionalMixture& model, const char* score) {
  for (const ColumnKernel& kernel : model.output_kernels()) {
    if (kernel.is_discrete()) {
      throw InvalidArgument(std::string(score) +
                            " is computed in closed form for continuous outputs; this model's y "
                            "is discrete (a probability mass function)");
    }
  }
}

void require_pairs(const MatrixView& x, const MatrixView& y) {
  require_same_samples(x, "x", y, "y");
  require_nonempty(y, "the evaluation data");
  require_finite(y, "y");
}

}  // namespace

Vector crps(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y) {
  require_scalar(model, "the CRPS");
  require_gaussian_outputs(model, "the CRPS");
  require_pairs(x, y);
  // CRPS = E|Y − y| − ½ E|Y − Y′| over the components in y's units (A(m, v) = E|N(m, v)|):
  //   E|Y − y| = Σ_k π_k A(c_k − y, v_k),  E|Y − Y′| = Σ_k Σ_l π_k π_l A(c_k − c_l, v_k + v_l).
  // Within a trend group, t = μ + f e moves every component alike and A(f a, f² b) = f A(a, b),
  // so the group's block is f times πᵀ M π with M_kl = A(c_k − c_l, s_k² + s_l²) on e, the same
  // matrix for every pair (one product for all pairs); only the blocks between the groups of a
  // pool depend on the pair. An atom's components are point masses at its value: spread 0, so
  // A(m, 0) = |m| (the atom's terms of E|Y − y| and E|Y − Y′|).
  if (model.has_output_transform() || model.has_output_bounds()) {
    return model.crps_by_quadrature(x, y);
  }
  const auto& groups = model.trend_groups();
  Eigen::RowVectorXd centers = model.centers().row(0);
  Eigen::RowVectorXd variances = model.scales().row(0).array().square();
  std::vector<bool> point_mass(static_cast<std::size_t>(model.n_components()), false);
  if (const auto& atom = model.atom()) {
    // An atom has no trend: its value in e is its standardisation.
    const double standardized =
        (atom->value - model.y_scaling().mean()(0)) / model.y_scaling().scale()(0);
    for (const Index k : atom->components) {
      centers(k) = standardized;
      variances(k) = 0.0;
      point_mass[static_cast<std::size_t>(k)] = true;
    }
  }
  // Each group's M, and the component whose spread in y over its s gives the group's factor f
  // times y's scale (a Gaussian component: the mixture keeps one beside an atom's).
  std::vector<Matrix> overlaps;
  std::vector<Index> references;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Index first = groups[g].first_component;
    const Index count = model.trend_group_end(g) - first;
    const Eigen::RowVectorXd c = centers.segment(first, count);
    const Eigen::RowVectorXd variance = variances.segment(first, count);
    Matrix& overlap = overlaps.emplace_back(count, count);
    for (Index k = 0; k < count; ++k) {
      for (Index l = 0; l <= k; ++l) {
        overlap(k, l) = overlap(l, k) =
            absolute_normal_mean(c(k) - c(l), variance(k) + variance(l));
      }
    }
    Index reference = first;
    while (reference + 1 < first + count && point_mass[static_cast<std::size_t>(reference)]) {
      ++reference;
    }
    references.push_back(reference);
  }
  // The rows in blocks whose components (three K × rows matrices) hold at most 4·2²⁰ entries:
  // the components of every row at once held 3·K·m doubles.
  const Index rows_per_block = std::max<Index>(1, (Index{1} << 22) / model.n_components());
  Vector result(y.cols());
  for (Index start = 0; start < y.cols(); start += rows_per_block) {
    const Index rows = std::min(rows_per_block, y.cols() - start);
    const ConditionalMixture::ScalarComponents components =
        model.scalar_components(x.middleCols(start, rows));
    const Matrix& pi = components.probabilities;
    Vector spread = Vector::Zero(rows);  // E|Y − Y′|
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto p = pi.middleRows(groups[g].first_component, overlaps[g].rows());
      const Eigen::ArrayXd factor = components.spreads.row(references[g]).transpose().array() /
                                    model.scales()(0, references[g]);
      spread.array() +=
          factor * (overlaps[g] * p).cwiseProduct(p).colwise().sum().transpose().array();
    }
    parallel_for(resolve_threads(0), rows, [&](Index j) {
      const auto p = pi.col(j);
      const auto c = components.centers.col(j);
      const double observed = y(0, start + j);
      const Eigen::ArrayXd variance = components.spreads.col(j).array().square();
      double distance = 0.0;
      for (Index k = 0; k < p.size(); ++k) {
        if (p(k) > 0.0) distance += p(k) * absolute_normal_mean(c(k) - observed, variance(k));
      }
      double between = 0.0;  // the blocks of two groups, each counted once and doubled
      for (std::size_t g = 0; g < groups.size(); ++g) {
        for (Index k = groups[g].first_component; k < model.trend_group_end(g); ++k) {
          if (!(p(k) > 0.0)) continue;
          for (Index l = model.trend_group_end(g); l < p.size(); ++l) {
            if (p(l) > 0.0) {
              between += p(k) * p(l) * absolute_normal_mean(c(k) - c(l), variance(k) + variance(l));
            }
          }
        }
      }
      result(start + j) = std::max(0.0, distance - 0.5 * (spread(j) + 2.0 * between));
    });
  }
  return result;
}

Matrix pinball_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                      const std::vector<double>& levels) {
  require_scalar(model, "the pinball loss");
  require_pairs(x, y);
  require_dimension(y, 1, "y");
  if (levels.empty()) throw InvalidArgument("the pinball loss needs at least one level");
  require_open_unit_interval(levels, "pinball levels");
  const Matrix quantiles = model.quantiles(x, levels);
  Matrix losses(quantiles.rows(), quantiles.cols());
  for (Index r = 0; r < quantiles.rows(); ++r) {
    const double tau = levels[static_cast<std::size_t>(r)];
    for (Index j = 0; j < quantiles.cols(); ++j) {
      const double residual = y(0, j) - quantiles(r, j);
      losses(r, j) = residual * (tau - (residual < 0.0 ? 1.0 : 0.0));
    }
  }
  return losses;
}

Vector cde_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y) {
  require_pairs(x, y);
  const Vector density = model.log_pdf(x, y).array().exp();
  return model.squared_norm(x) - 2.0 * density;
}

EnergyScores energy_scores(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y, Index draws, std::uint64_t seed,
                           Progress& progress) {
  require_pairs(x, y);
  if (draws < 4 || draws % 2 != 0) {
    throw InvalidArgument(
        "the energy score needs an even number of at least 4 draws per pair, got " +
        std::to_string(draws));
  }
  require_dimension(y, model.output_dim(), "y");
  const Index couples = draws / 2;
  EnergyScores scores{Vector(y.cols()), Vector(y.cols()), draws};
  detail::for_each_draw_block(
      model, x, draws, seed, progress, [&](Index first, const Matrix& sample) {
        for (Index b = 0; b * draws < sample.cols(); ++b) {
          const Index j = first + b;
          Vector terms(couples);
          for (Index r = 0; r < couples; ++r) {
            const auto draw = sample.col(b * draws + r);
            const auto partner = sample.col(b * draws + couples + r);
            terms(r) = (draw - y.col(j)).norm() - 0.5 * (draw - partner).norm();
          }
          scores.values(j) = terms.mean();
          const double variance =
              (terms.array() - terms.mean()).square().sum() / static_cast<double>(couples - 1);
          scores.standard_errors(j) = std::sqrt(variance / static_cast<double>(couples));
        }
      });
  return scores;
}

Matrix central_interval_widths(const ConditionalMixture& model, const MatrixView& x,
                               const std::vector<double>& levels) {
  require_scalar(model, "central intervals");
  require_open_unit_interval(levels, "interval levels");
  std::vector<double> tails;
  for (double level : levels) {
    tails.push_back(0.5 * (1.0 - level));
    tails.push_back(0.5 * (1.0 + level));
  }
  const Matrix bounds = model.quantiles(x, tails);
  Matrix widths(static_cast<Index>(levels.size()), x.cols());
  for (Index r = 0; r < widths.rows(); ++r)
    widths.row(r) = bounds.row(2 * r + 1) - bounds.row(2 * r);
  return widths;
}

Matrix highest_density_widths(const ConditionalMixture& model, const MatrixView& x,
                              const std::vector<double>& levels) {
  require_scalar(model, "highest-density regions");
  require_open_unit_interval(levels, "interval levels");
  Matrix widths = Matrix::Zero(static_cast<Index>(levels.size()), x.cols());
  for (Index r = 0; r < widths.rows(); ++r) {
    const auto regions = model.highest_density_regions(x, levels[static_cast<std::size_t>(r)]);
    for (Index j = 0; j < x.cols(); ++j) {
      for (const auto& interval : regions[static_cast<std::size_t>(j)].intervals) {
        widths(r, j) += interval.upper - interval.lower;
      }
    }
  }
  return widths;
}

}  // namespace cdens

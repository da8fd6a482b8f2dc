#include "cdens/evaluation/scores.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cdens/core/types.hpp"
#include "core/validate.hpp"
#include "evaluation/draw_blocks.hpp"
#include "evaluation/score_parts.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

void require_scalar(const ConditionalMixture& model, const char* score) {
  if (model.output_dim() != 1) {
    throw InvalidArgument(std::string(score) + " needs a one-dimensional y; this model has d_y = " +
                          std::to_string(model.output_dim()));
  }
}

/// The CRPS of a discrete y is left to the RPS (ranked_probability_scores): a y declared
/// discrete (a KCDE probability mass function) is refused.
void require_continuous_output(const ConditionalMixture& model, const char* score) {
  for (const ColumnKernel& kernel : model.output_kernels()) {
    if (kernel.is_discrete()) {
      throw InvalidArgument(std::string(score) +
                            " is computed for continuous outputs; this model's y is discrete (a "
                            "probability mass function): its score is the RPS");
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
  require_continuous_output(model, "the CRPS");
  require_pairs(x, y);
  return model.crps(x, y);
}

Matrix pinball_losses(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                      const std::vector<double>& levels) {
  require_scalar(model, "the pinball loss");
  require_pairs(x, y);
  require_dimension(y, 1, "y");
  if (levels.empty()) throw InvalidArgument("the pinball loss needs at least one level");
  require_open_unit_interval(levels, "pinball levels");
  return detail::pinball_losses_of(model.quantiles(x, levels), y, levels);
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
  const auto rows = static_cast<Index>(levels.size());
  return detail::central_widths_of(model.quantiles(x, detail::central_interval_tails(levels)), 0,
                                   rows);
}

Matrix highest_density_widths(const ConditionalMixture& model, const MatrixView& x,
                              const std::vector<double>& levels) {
  require_scalar(model, "highest-density regions");
  require_open_unit_interval(levels, "interval levels");
  ConditionalMixture::ScalarQueries queries;
  queries.coverages = levels;
  return detail::region_widths_of(model.scalar_answers(x, Matrix(1, 0), queries).regions, x.cols());
}

namespace detail {

Matrix pinball_losses_of(const Matrix& quantiles, const MatrixView& y,
                         const std::vector<double>& levels) {
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

std::vector<double> central_interval_tails(const std::vector<double>& levels) {
  std::vector<double> tails;
  for (double level : levels) {
    tails.push_back(0.5 * (1.0 - level));
    tails.push_back(0.5 * (1.0 + level));
  }
  return tails;
}

Matrix central_widths_of(const Matrix& quantiles, Index first, Index levels) {
  Matrix widths(levels, quantiles.cols());
  for (Index r = 0; r < levels; ++r) {
    widths.row(r) = quantiles.row(first + 2 * r + 1) - quantiles.row(first + 2 * r);
  }
  return widths;
}

Matrix region_widths_of(const std::vector<std::vector<HighestDensityRegion>>& regions,
                        Index pairs) {
  Matrix widths = Matrix::Zero(static_cast<Index>(regions.size()), pairs);
  for (std::size_t r = 0; r < regions.size(); ++r) {
    for (Index j = 0; j < pairs; ++j) {
      for (const auto& interval : regions[r][static_cast<std::size_t>(j)].intervals) {
        widths(static_cast<Index>(r), j) += interval.upper - interval.lower;
      }
    }
  }
  return widths;
}

}  // namespace detail

}  // namespace cdens

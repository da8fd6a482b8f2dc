#include <cmath>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/evaluation/scores.hpp"

namespace cdens {

CvLoss parse_cv_loss(std::string_view name) {
  if (name == "kl") return CvLoss::kl;
  if (name == "sq") return CvLoss::sq;
  throw InvalidArgument("unknown cross-validation loss '" + std::string(name) +
                        "' (expected kl or sq)");
}

std::string to_string(CvLoss loss) { return loss == CvLoss::kl ? "kl" : "sq"; }

double mean_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y) {
  if (x.cols() == 0) throw DataError("cannot score an empty data set");
  return model.log_pdf(x, y).mean();
}

double negative_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y) {
  return -mean_log_likelihood(model, x, y);
}

double squared_loss(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y) {
  if (x.cols() == 0) throw DataError("cannot score an empty data set");
  const Vector densities = model.log_pdf(x, y).array().exp();
  return (0.5 * model.squared_norm(x) - densities).mean();
}

double held_out_loss(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                     const MatrixView& y) {
  return loss == CvLoss::kl ? negative_log_likelihood(model, x, y) : squared_loss(model, x, y);
}

Vector held_out_pair_losses(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                            const MatrixView& y) {
  const Vector log_densities = model.log_pdf(x, y);
  if (loss == CvLoss::kl) return -log_densities;
  return 0.5 * model.squared_norm(x) - log_densities.array().exp().matrix();
}

double l1_test_error(const GaussianMixture& model, const MatrixView& x_test,
                     const VectorView& true_density) {
  if (x_test.cols() == 0) throw InvalidArgument("the L1 test error needs test points");
  if (true_density.size() != x_test.cols()) {
    throw InvalidArgument("the L1 test error got " + std::to_string(true_density.size()) +
                          " true densities for " + std::to_string(x_test.cols()) + " points");
  }
  if (!true_density.allFinite() || (true_density.array() < 0.0).any()) {
    throw DataError("the true densities must be finite and non-negative");
  }
  return (model.pdf(x_test) - true_density).cwiseAbs().mean();
}

KlGrid kl_divergence_grid(const Vector& lower, const Vector& upper, Index n_par) {
  const Index d = lower.size();
  if (d == 0 || upper.size() != d || !lower.allFinite() || !upper.allFinite() ||
      !(lower.array() < upper.array()).all()) {
    throw InvalidArgument("the KL grid needs finite bounds with lower < upper in every dimension");
  }
  if (n_par < 1) throw InvalidArgument("the KL grid needs N_par ≥ 1");
  double count = 1.0;
  for (Index i = 0; i < d; ++i) count *= static_cast<double>(n_par);
  if (count > 1e8) throw InvalidArgument("the KL grid would have more than 10^8 points");
  const Vector step = (upper - lower) / static_cast<double>(n_par);
  KlGrid grid;
  grid.cell_volume = step.prod();
  grid.points.resize(d, static_cast<Index>(count));
  for (Index j = 0; j < grid.points.cols(); ++j) {
    Index rest = j;
    for (Index i = 0; i < d; ++i) {
      grid.points(i, j) = lower(i) + static_cast<double>(rest % n_par + 1) * step(i);
      rest /= n_par;
    }
  }
  return grid;
}

double kl_divergence_on_grid(const GaussianMixture& model, const KlGrid& grid,
                             const VectorView& true_density) {
  if (true_density.size() != grid.points.cols()) {
    throw InvalidArgument("the KL divergence got " + std::to_string(true_density.size()) +
                          " true densities for " + std::to_string(grid.points.cols()) +
                          " grid points");
  }
  if (!true_density.allFinite() || (true_density.array() < 0.0).any()) {
    throw DataError("the true densities must be finite and non-negative");
  }
  const Vector log_estimate = model.log_pdf(grid.points);
  double total = 0.0;
  for (Index k = 0; k < true_density.size(); ++k) {
    const double p = true_density(k);
    if (p > 0.0) total += p * (std::log(p) - log_estimate(k));
  }
  return total * grid.cell_volume;
}

Index model_size(const GaussianMixture& model) { return (model.weights().array() > 0.0).count(); }

double held_out_ise(const GaussianMixture& model, const MatrixView& x, const Vector& weights) {
  if (x.cols() == 0) throw DataError("no samples to score");
  const Vector density = model.pdf(x);
  const double mean = weights.size() > 0 ? density.dot(weights) / weights.sum() : density.mean();
  return model.squared_norm() - 2.0 * mean;
}

}  // namespace cdens

#include "gskd_holdout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cdens/core/gaussian_kernel.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/samples.hpp"
#include "gskd_construction.hpp"

namespace cdens {
namespace {

/// The random stream of the hold-out folds (the RWBS stages use streams 0, 1, …).
constexpr std::uint64_t kFoldStream = 999;

/// log N(a; b, diag v) for the column a, b and variances v.
double log_gaussian(const VectorView& a, const VectorView& b, const Eigen::ArrayXd& v) {
  return -0.5 * (static_cast<double>(a.size()) * kLog2Pi + v.log().sum() +
                 ((a - b).array().square() / v).sum());
}

}  // namespace

double gskd_held_out_ise(const MatrixView& held_out, const Vector& weights,
                         const std::vector<Vector>& kernels) {
  const Index m = held_out.rows();
  const auto count = static_cast<Index>(weights.size());
  // ∫ N(z; c_l, Γ_l) N(z; c_l', Γ_l') dz = N(c_l; c_l', Γ_l + Γ_l').
  double squared_norm = 0.0;
  for (Index l = 0; l < count; ++l) {
    const Vector& a = kernels[static_cast<std::size_t>(l)];
    for (Index k = 0; k < count; ++k) {
      const Vector& b = kernels[static_cast<std::size_t>(k)];
      squared_norm +=
          weights(l) * weights(k) *
          std::exp(log_gaussian(a.head(m), b.head(m), a.tail(m).array() + b.tail(m).array()));
    }
  }
  double mean_density = 0.0;
  for (Index h = 0; h < held_out.cols(); ++h) {
    for (Index l = 0; l < count; ++l) {
      const Vector& u = kernels[static_cast<std::size_t>(l)];
      mean_density +=
          weights(l) * std::exp(log_gaussian(held_out.col(h), u.head(m), u.tail(m).array()));
    }
  }
  mean_density /= static_cast<double>(held_out.cols());
  return squared_norm - 2.0 * mean_density;
}

GskdHoldoutChoice choose_gskd_stages(const MatrixView& z, double target_width,
                                     const GskdOptions& options, const RwbsOptions& rwbs,
                                     int threads) {
  Rng rng(options.seed, kFoldStream);
  const KFold folds(z.cols(), options.folds, rng);
  const std::vector<double>& bounds = options.variance_upper_candidates;
  const auto bound_count = static_cast<Index>(bounds.size());
  // scores[c][k]: the held-out error of fold k after stages 1, 2, … with bound c.
  std::vector<std::vector<std::vector<double>>> scores(
      bounds.size(), std::vector<std::vector<double>>(static_cast<std::size_t>(folds.n_folds())));
  Index longest = 1;
  for (Index c = 0; c < bound_count; ++c) {
    for (int k = 0; k < folds.n_folds(); ++k) {
      const Matrix training = gather_samples(z, folds.train(k));
      const Matrix held_out = gather_samples(z, folds.test(k));
      GskdConstruction construction(training, target_width,
                                    gskd_box(training, target_width, options.variance_lower,
                                             bounds[static_cast<std::size_t>(c)]),
                                    rwbs, options.regularization, threads);
      std::vector<double>& trace = scores[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)];
      double best = std::numeric_limits<double>::infinity();
      int since_best = 0;
      while (static_cast<Index>(trace.size()) < std::min(options.max_kernels, training.cols()) &&
             since_best < options.patience && construction.add_stage()) {
        const std::vector<Vector>& kernels = construction.kernels();
        const auto count = static_cast<Index>(kernels.size());
        const MnqpResult weights =
            gskd_weights(training, construction.target(), kernels, count, options.mnqp);
        trace.push_back(gskd_held_out_ise(held_out, weights.weights, kernels));
        if (trace.back() < best) {
          best = trace.back();
          since_best = 0;
        } else {
          ++since_best;
        }
      }
      longest = std::max(longest, static_cast<Index>(trace.size()));
    }
  }
  Matrix candidates(bound_count * longest, 2);
  Matrix fold_loss(bound_count * longest, folds.n_folds());
  for (Index c = 0; c < bound_count; ++c) {
    for (Index n = 0; n < longest; ++n) {
      const Index row = c * longest + n;
      candidates.row(row) << bounds[static_cast<std::size_t>(c)], static_cast<double>(n + 1);
      for (int k = 0; k < folds.n_folds(); ++k) {
        const std::vector<double>& trace =
            scores[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)];
        const auto at = std::min<std::size_t>(static_cast<std::size_t>(n), trace.size() - 1);
        fold_loss(row, k) = trace[at];
      }
    }
  }
  GskdHoldoutChoice choice;
  choice.table = make_cv_table({"variance_upper", "stages"}, candidates, fold_loss, "ise");
  if (choice.table.best >= 0) {
    choice.variance_upper = choice.table.candidates(choice.table.best, 0);
    choice.stages = static_cast<Index>(choice.table.candidates(choice.table.best, 1));
  }
  return choice;
}

}  // namespace cdens

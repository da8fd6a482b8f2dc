#include "conditional/sufficient_reduction.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>

#include "cdens/core/types.hpp"
#include "conditional/grassmann.hpp"
#include "conditional/lscde_basis.hpp"
#include "conditional/lscde_system.hpp"
#include "core/random_streams.hpp"
#include "core/samples.hpp"
#include "core/validate.hpp"
#include "parallel/parallel.hpp"

namespace cdens {
namespace {

/// The first step turns the subspace by about this many radians.
constexpr double kInitialTurn = 0.2;

/// c₀ of J: 0 for SCE-hat, ½ for −SMI-hat.
double criterion_offset(ReductionCriterion criterion) {
  return criterion == ReductionCriterion::smi ? 0.5 : 0.0;
}

/// C of Ĥ = (ΦᵀΦ) ∘ C for the n inputs of every rank, this rank's with output factors Ψ
/// (n_r × b); LSMI's ΨᵀΨ is summed over the ranks (a collective call).
Matrix coupling_matrix(ReductionCriterion criterion, const Matrix& psi, Index n,
                       const Matrix& centers_y, double sigma, const Communicator& communicator) {
  if (criterion == ReductionCriterion::sce) {
    const LscdeBasis basis{Matrix(0, centers_y.cols()), centers_y, sigma};
    return lscde_output_coupling(output_overlap(basis), basis, static_cast<double>(n));
  }
  Matrix gram = gram_of_rows(psi);
  communicator.allreduce_sum(gram.data(), static_cast<std::size_t>(gram.size()));
  return gram / (static_cast<double>(n) * static_cast<double>(n));
}

/// ΦᵀΦ and Σ_i Φ_i ∘ Ψ_i over every rank's rows (this rank's factors Φ and Ψ, n_r × b): the
/// statistics of Ĥ and ĥ, in one collective call.
struct BasisSums {
  Matrix gram;
  Vector joint;
};

BasisSums basis_sums(const Matrix& phi, const Matrix& psi, const Communicator& communicator) {
  const Index b = phi.cols();
  Matrix sums(b, b + 1);
  sums.leftCols(b) = gram_of_rows(phi);
  sums.col(b) = phi.cwiseProduct(psi).colwise().sum().transpose();
  communicator.allreduce_sum(sums.data(), static_cast<std::size_t>(sums.size()));
  return {sums.leftCols(b), sums.col(b)};
}

}  // namespace

std::string to_string(ReductionCriterion criterion) {
  return criterion == ReductionCriterion::sce ? "sce" : "smi";
}

ReductionObjective::ReductionObjective(ReductionCriterion criterion, const Matrix& x,
                                       const Matrix& y, const Matrix& centers_x,
                                       const Matrix& centers_y, double sigma, double lambda,
                                       const Communicator& communicator)
    : x_(x),
      centers_x_(centers_x),
      communicator_(&communicator),
      n_(communicator.sum_counts(x.cols())),
      sigma_(sigma),
      lambda_(lambda),
      offset_(criterion_offset(criterion)),
      psi_(lscde_basis_factors(y, centers_y, sigma)),
      coupling_(coupling_matrix(criterion, psi_, n_, centers_y, sigma, communicator)) {
  require_positive(sigma, "sigma");
  require_positive(lambda, "lambda");
}

ReductionObjective::Solution ReductionObjective::solve(const Matrix& w) const {
  Solution solution;
  solution.w = w;
  const Matrix z = w * x_;
  solution.phi = lscde_basis_factors(z, w * centers_x_, sigma_);
  const BasisSums sums = basis_sums(solution.phi, psi_, *communicator_);
  solution.h_matrix = sums.gram.cwiseProduct(coupling_);
  solution.h_vector = sums.joint / static_cast<double>(n_);
  Matrix regularized = solution.h_matrix;
  regularized.diagonal().array() += lambda_;
  solution.regularized.compute(regularized);
  if (solution.regularized.info() != Eigen::Success) {
    throw DataError("the regularised matrix of the reduction objective is not positive definite");
  }
  solution.alpha = solution.regularized.solve(solution.h_vector);
  solution.value = 0.5 * solution.alpha.dot(solution.h_matrix * solution.alpha) -
                   solution.h_vector.dot(solution.alpha) + offset_;
  return solution;
}

double ReductionObjective::value(const Matrix& w) const { return solve(w).value; }

Vector ReductionObjective::coefficients(const Matrix& w) const { return solve(w).alpha; }

Matrix ReductionObjective::gradient(const Solution& s) const {
  const Vector beta = s.regularized.solve(s.h_matrix * s.alpha);
  // M = (α̂ (3/2 α̂ − β̂)ᵀ) ∘ C; only M + Mᵀ enters.
  const Matrix m = (s.alpha * (1.5 * s.alpha - beta).transpose()).cwiseProduct(coupling_);
  const Vector joint_weights = (beta - 2.0 * s.alpha) / static_cast<double>(n_);
  Matrix t = s.phi * (m + m.transpose()) + psi_ * joint_weights.asDiagonal();
  t = t.cwiseProduct(s.phi) * (-1.0 / (sigma_ * sigma_));
  // S = X diag(T1) Xᵀ − X T X̃ᵀ − (X T X̃ᵀ)ᵀ + X̃ diag(Tᵀ1) X̃ᵀ: a sum over rows i, this rank's
  // part added to the others'.
  const Vector row_sums = t.rowwise().sum();
  const Vector column_sums = t.colwise().sum().transpose();
  const Matrix cross = x_ * t * centers_x_.transpose();
  Matrix s_matrix = x_ * row_sums.asDiagonal() * x_.transpose() - cross - cross.transpose() +
                    centers_x_ * column_sums.asDiagonal() * centers_x_.transpose();
  communicator_->allreduce_sum(s_matrix.data(), static_cast<std::size_t>(s_matrix.size()));
  return s.w * s_matrix;
}

ReductionFolds::ReductionFolds(ReductionCriterion criterion, const Matrix& y,
                               const ShardedSamplingPlan& plan, const Matrix& candidates_x,
                               const Matrix& candidates_y, std::vector<double> sigmas,
                               std::vector<double> lambdas, const Communicator& communicator)
    : communicator_(&communicator),
      criterion_(criterion),
      sigmas_(std::move(sigmas)),
      lambdas_(std::move(lambdas)) {
  if (plan.fold_count() == 0) throw InvalidArgument("cross-validation needs folds");
  const Index n = communicator.sum_counts(y.cols());
  const auto part = [&](std::vector<Index> rows, Index count, const Matrix& centers_y) {
    Part result{std::move(rows), count, {}, {}};
    const Matrix y_part = gather_samples(y, result.rows);
    for (double sigma : sigmas_) {
      result.psi.push_back(lscde_basis_factors(y_part, centers_y, sigma));
      result.coupling.push_back(
          coupling_matrix(criterion_, result.psi.back(), count, centers_y, sigma, communicator));
    }
    return result;
  };
  for (int k = 0; k < plan.fold_count(); ++k) {
    const auto& positions = plan.fold_centers[static_cast<std::size_t>(k)];
    const Matrix centers_y = gather_samples(candidates_y, positions);
    std::vector<Index> training;
    std::vector<Index> held_out;
    for (std::size_t i = 0; i < plan.local_folds.size(); ++i) {
      (plan.local_folds[i] == k ? held_out : training).push_back(static_cast<Index>(i));
    }
    const Index fold_size = plan.fold_sizes[static_cast<std::size_t>(k)];
    Part training_part = part(std::move(training), n - fold_size, centers_y);
    Part held_out_part = part(std::move(held_out), fold_size, centers_y);
    folds_.push_back({gather_samples(candidates_x, positions), std::move(training_part),
                      std::move(held_out_part)});
  }
}

CvTable ReductionFolds::cross_validate(const Matrix& x, const Matrix& w,
                                       const std::vector<Index>& sigma_indices,
                                       const std::vector<Index>& lambda_indices) const {
  std::vector<double> sigmas;
  std::vector<double> lambdas;
  for (const Index s : sigma_indices) sigmas.push_back(sigmas_[static_cast<std::size_t>(s)]);
  for (const Index l : lambda_indices) lambdas.push_back(lambdas_[static_cast<std::size_t>(l)]);
  const auto lambda_count = static_cast<Index>(lambdas.size());
  const Matrix z = w * x;
  const double offset = criterion_offset(criterion_);
  Matrix fold_loss(static_cast<Index>(sigmas.size()) * lambda_count,
                   static_cast<Index>(folds_.size()));
  for (std::size_t k = 0; k < folds_.size(); ++k) {
    const Fold& fold = folds_[k];
    const Matrix centers_z = w * fold.centers_x;
    const Matrix z_train = gather_samples(z, fold.training.rows);
    const Matrix z_test = gather_samples(z, fold.held_out.rows);
    const auto training_count = static_cast<double>(fold.training.count);
    const auto held_out_count = static_cast<double>(fold.held_out.count);
    for (std::size_t c = 0; c < sigmas.size(); ++c) {
      const auto s = static_cast<std::size_t>(sigma_indices[c]);
      const Matrix phi = lscde_basis_factors(z_train, centers_z, sigmas[c]);
      const BasisSums training = basis_sums(phi, fold.training.psi[s], *communicator_);
      const LscdeSystem system{training.gram.cwiseProduct(fold.training.coupling[s]),
                               training.joint / training_count};
      const Matrix alphas = lscde_solutions(system, lambdas);
      // J of each α̂(λ) on the held-out fold: ½ αᵀĤ_test α − ĥ_testᵀα + c₀.
      const Matrix phi_test = lscde_basis_factors(z_test, centers_z, sigmas[c]);
      const BasisSums held_out = basis_sums(phi_test, fold.held_out.psi[s], *communicator_);
      const Matrix h_test = held_out.gram.cwiseProduct(fold.held_out.coupling[s]);
      const Vector quadratic = (h_test * alphas).cwiseProduct(alphas).colwise().sum().transpose();
      const Vector linear = alphas.transpose() * (held_out.joint / held_out_count);
      fold_loss.block(static_cast<Index>(c) * lambda_count, static_cast<Index>(k), lambda_count,
                      1) = (0.5 * quadratic - linear).array() + offset;
    }
  }
  return make_cv_table({"sigma", "regularization"}, product_grid(sigmas, lambdas), fold_loss,
                       to_string(criterion_));
}

namespace {

/// 0 … count − 1.
std::vector<Index> all_indices(std::size_t count) {
  std::vector<Index> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = static_cast<Index>(i);
  return indices;
}

/// The indices within one step of `index` in a grid of `count`.
std::vector<Index> neighbour_indices(Index index, std::size_t count) {
  std::vector<Index> indices;
  for (Index i = std::max<Index>(0, index - 1);
       i <= std::min<Index>(static_cast<Index>(count) - 1, index + 1); ++i) {
    indices.push_back(i);
  }
  return indices;
}

/// The choice of a cross-validation over the candidates sigma_indices × lambda_indices.
GridChoice choice_of(const CvTable& table, const std::vector<Index>& sigma_indices,
                     const std::vector<Index>& lambda_indices) {
  if (table.best < 0) throw DataError("cross-validation of the reduction produced no finite loss");
  const auto count = static_cast<Index>(lambda_indices.size());
  return {sigma_indices[static_cast<std::size_t>(table.best / count)],
          lambda_indices[static_cast<std::size_t>(table.best % count)]};
}

}  // namespace

GridChoice choose_on_full_grid(const ReductionFolds& folds, const Matrix& x, const Matrix& w) {
  const auto sigma_indices = all_indices(folds.sigmas().size());
  const auto lambda_indices = all_indices(folds.lambdas().size());
  return choice_of(folds.cross_validate(x, w, sigma_indices, lambda_indices), sigma_indices,
                   lambda_indices);
}

ReductionRun search_subspace(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                             const Matrix& centers_x, const Matrix& centers_y,
                             const ReductionFolds& folds, const ReductionOptions& options,
                             Matrix start, GridChoice around, const Communicator& communicator) {
  ReductionRun run;
  run.w = std::move(start);
  const auto validate_near = [&](const Matrix& w, const GridChoice& current) {
    const auto sigma_indices = neighbour_indices(current.sigma, folds.sigmas().size());
    const auto lambda_indices = neighbour_indices(current.lambda, folds.lambdas().size());
    run.cross_validation = folds.cross_validate(x, w, sigma_indices, lambda_indices);
    return choice_of(run.cross_validation, sigma_indices, lambda_indices);
  };
  const auto objective_for = [&](const GridChoice& choice) {
    return std::make_unique<ReductionObjective>(
        criterion, x, y, centers_x, centers_y,
        folds.sigmas()[static_cast<std::size_t>(choice.sigma)],
        folds.lambdas()[static_cast<std::size_t>(choice.lambda)], communicator);
  };
  GridChoice choice = validate_near(run.w, around);
  // The whole Grassmann manifold is one point when d_z = d_x.
  if (run.w.rows() < run.w.cols()) {
    auto objective = objective_for(choice);
    // The line search accepts one of its last two points (the last, or the one before a
    // doubling that failed); their solutions are kept so that the gradient there costs no
    // second solve.
    std::array<std::optional<ReductionObjective::Solution>, 2> recent;
    const auto value_of = [&](const Matrix& w) {
      recent[0] = std::move(recent[1]);
      recent[1] = objective->solve(w);
      return recent[1]->value;
    };
    const auto solution_at = [&](const Matrix& w) {
      for (auto& solution : recent) {
        if (solution && solution->w == w) return std::move(*solution);
      }
      return objective->solve(w);
    };
    ReductionObjective::Solution current = objective->solve(run.w);
    double value = current.value;
    Matrix gradient = objective->gradient(current);
    double step = -1.0;     // the last accepted step; negative until the first
    bool validated = true;  // whether run.cross_validation belongs to run.w
    while (run.updates < options.max_iter) {
      const GrassmannGeodesic geodesic(run.w, gradient);
      if (step <= 0.0) step = geodesic.speed() > 0.0 ? kInitialTurn / geodesic.speed() : 1.0;
      const GeodesicStep found = geodesic_line_search(geodesic, value, step, value_of);
      ++run.updates;
      const bool converged =
          found.t == 0.0 ||
          value - found.value <= options.tolerance * std::max(1.0, std::abs(value));
      if (found.t > 0.0) {
        run.w = found.w;
        step = found.t;
        validated = false;
      }
      run.trace.push_back(found.value);
      if (converged || run.updates % options.cv_interval == 0) {
        const GridChoice next = validate_near(run.w, choice);
        validated = true;
        if (next == choice && converged) break;
        if (!(next == choice)) {
          choice = next;
          objective = objective_for(choice);
          recent = {};
        }
      }
      current = solution_at(run.w);
      recent = {};
      value = current.value;
      gradient = objective->gradient(current);
    }
    if (!validated) choice = validate_near(run.w, choice);
  }
  run.sigma = folds.sigmas()[static_cast<std::size_t>(choice.sigma)];
  run.lambda = folds.lambdas()[static_cast<std::size_t>(choice.lambda)];
  return run;
}

namespace {

void validate(const Matrix& x, const Matrix& y, const ReductionOptions& options,
              const Communicator& communicator) {
  require_training_shard(x, y, communicator);
  require_positive_values(options.sigma, "sigma candidates");
  require_positive_values(options.regularization, "lambda candidates");
  if (options.n_components < 1 || options.n_components > x.rows()) {
    throw InvalidArgument("n_components (d_z) must lie in 1 … d_x = " + std::to_string(x.rows()) +
                          ", got " + std::to_string(options.n_components));
  }
  if (options.n_restarts < 1) throw InvalidArgument("the number of restarts must be at least 1");
  if (options.cv_interval < 1) throw InvalidArgument("the CV interval must be at least 1");
  if (options.max_iter < 0) throw InvalidArgument("max_iter must not be negative");
  if (!(options.tolerance >= 0.0)) throw InvalidArgument("the tolerance must not be negative");
}

/// The cross-validated J of a run: its table's best mean loss.
double score_of(const ReductionRun& run) {
  return run.cross_validation.mean_loss(run.cross_validation.best);
}

}  // namespace

ReductionResult reduce_dimension(ReductionCriterion criterion, const Matrix& x, const Matrix& y,
                                 const ReductionOptions& options, const FitContext& context) {
  const Communicator& communicator = context.communicator;
  agree_on_errors(communicator, [&] { validate(x, y, options, communicator); });
  const Index dx = x.rows();
  // Folds even for a single (σ, λ): the search cross-validates J to rank starts. The plan is the
  // single process's for every rank's rows (sharded_sampling_plan.hpp).
  const ShardedSamplingPlan plan = draw_sharded_sampling_plan(
      x.cols(), options.n_centers, options.folds, options.seed, communicator);
  const Index first_row = communicator.sum_counts_below(x.cols());
  const Matrix candidates_x =
      gather_global_samples(x, first_row, plan.candidate_order, communicator);
  const Matrix candidates_y =
      gather_global_samples(y, first_row, plan.candidate_order, communicator);
  ReductionResult result;
  result.centers_x = candidates_x.leftCols(plan.center_count);
  result.centers_y = candidates_y.leftCols(plan.center_count);

  // One task per start; d_z = d_x has a single point and so a single start. Each start's W comes
  // from its own random stream, keyed by (d_z, start), never by the thread.
  const Index dz = options.n_components;
  const int starts = dz == dx ? 1 : options.n_restarts;
  const ReductionFolds folds(criterion, y, plan, candidates_x, candidates_y, options.sigma,
                             options.regularization, communicator);
  result.runs.resize(static_cast<std::size_t>(starts));
  context.progress.begin("subspace search", starts);
  const auto start_of = [&](Index r) {
    Rng rng(options.seed, random_stream::subspace_start(dz, r));
    return dz == dx ? Matrix(Matrix::Identity(dx, dx)) : random_orthonormal_rows(dz, dx, rng);
  };
  const GridChoice around = choose_on_full_grid(folds, x, start_of(0));
  // On many ranks every evaluation is a collective call: the starts take turns.
  const int start_threads = communicator.size() == 1 ? resolve_threads(context.threads) : 1;
  parallel_for(start_threads, starts, [&](Index r) {
    result.runs[static_cast<std::size_t>(r)] =
        search_subspace(criterion, x, y, result.centers_x, result.centers_y, folds, options,
                        start_of(r), around, communicator);
    context.progress.advance();
  });
  context.progress.end();

  // The best start (ties to the earlier).
  std::size_t best = 0;
  for (std::size_t r = 1; r < result.runs.size(); ++r) {
    if (score_of(result.runs[r]) < score_of(result.runs[best])) best = r;
  }
  if (!std::isfinite(score_of(result.runs[best]))) {
    throw DataError("cross-validation of the reduction produced no finite loss");
  }
  result.best = result.runs[best];
  return result;
}

}  // namespace cdens

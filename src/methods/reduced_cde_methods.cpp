// The options and registry entries of LSCE and LSMI with LSCDE or ε-KDE on z = Wx.

#include "conditional/kernel_gates.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/projected_gate.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// The rows of every reduced method; `with_radii` adds the ε-KDE's radii, `with_final_model`
/// lsce's choice of final model.
OptionTable<LsceOptions> reduced_cde_rows(bool with_radii, bool with_final_model) {
  using namespace registry_internal;
  using Options = LsceOptions;
  OptionTable<Options> rows;
  rows.add(none_by_default(
               in_range(option("n_components", OptionType::integer,
                               "Dimension d_z of the projection; by default chosen among 1 … "
                               "d_x by cross-validation of the whole method (W and "
                               "the estimator on z fitted without each fold and "
                               "scored on it: by the SQ criterion, or for lsce's refit by "
                               "dz_loss; about K + 1 times the cost of a fit at one d_z "
                               "per candidate)"),
                        0)),
           &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, n_components));
  rows.add(in_range(option("n_restarts", OptionType::integer,
                           "Random orthonormal starts of the search for W; the best by "
                           "cross-validation is kept"),
                    1),
           &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, n_restarts));
  rows.add(in_range(option("max_iter", OptionType::integer,
                           "Updates of W per start at most (the paper: until W converges)"),
                    0),
           &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, max_iter));
  rows.add(sigma_grid(), &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, sigma));
  rows.add(lambda_grid(), &Options::reduction,
           CDENS_OPTION_FIELD(ReductionOptions, regularization));
  if (with_radii) {
    rows.add(epsilon_grid(), &Options::epsilon_kde, CDENS_OPTION_FIELD(EkdeOptions, epsilon));
  }
  if (with_final_model) {
    rows.add_choice(option("final_model", OptionType::choice,
                           "The model on z = Wx: refit (LSCDE refitted with σ, λ by KL "
                           "cross-validation) or paper (the LSCDE inside the SCE estimate, §2.6, "
                           "whose σ, λ the SCE criterion chose: in many output dimensions it "
                           "prefers spikes); the d_z cross-validation scores the chosen model"),
                    CDENS_OPTION_FIELD(Options, final_model),
                    {LsceFinalModel::refit, LsceFinalModel::paper},
                    [](LsceFinalModel model) { return to_string(model); });
    rows.add_choice(option("dz_loss", OptionType::choice,
                           "final_model=refit: how the d_z cross-validation scores the refitted "
                           "LSCDE on each held-out fold: sq (the SQ criterion of §3.2, as the "
                           "paper's model and LSMI are scored) or kl (its own criterion, the "
                           "held-out negative log-likelihood that chose its σ and λ)"),
                    CDENS_OPTION_FIELD(Options, dz_loss), {CvLoss::sq, CvLoss::kl},
                    [](CvLoss loss) { return to_string(loss); });
  }
  rows.add(n_centers_option(), &Options::reduction,
           CDENS_OPTION_FIELD(ReductionOptions, n_centers));
  // One K for every cross-validation of the method (W's, d_z's and the ε-KDE's).
  rows.add_to_both(folds_option(), &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, folds),
                   &Options::epsilon_kde, CDENS_OPTION_FIELD(EkdeOptions, folds));
  rows.add(seed_option(), &Options::reduction, CDENS_OPTION_FIELD(ReductionOptions, seed));
  return rows;
}

}  // namespace

const OptionTable<LsceOptions>& lsce_option_table(ReducedCdeMethod method) {
  static const OptionTable<LsceOptions> lsce = reduced_cde_rows(false, true);
  static const OptionTable<LsceOptions> lscde = reduced_cde_rows(false, false);
  static const OptionTable<LsceOptions> epsilon_kde = reduced_cde_rows(true, false);
  if (method == ReducedCdeMethod::lsce) return lsce;
  if (method == ReducedCdeMethod::lsmi_lscde) return lscde;
  return epsilon_kde;
}

namespace registry_internal {
namespace {

/// The arrays of a reduced fit that its model file does not keep, and W, which the command
/// prints.
FitExtras reduced_cde_extras(const LsceFit& fit) {
  std::vector<Vector> traces;
  for (const std::vector<double>& trace : fit.traces) {
    traces.emplace_back(Eigen::Map<const Vector>(trace.data(), static_cast<Index>(trace.size())));
  }
  return {{"traces", std::move(traces)}, {"projection", fit.projection}};
}

/// z = W x̄ (eq. 1 of the LSCE paper) for inputs x standardised as in the fit, n × d_z.
Matrix projected_inputs(const ConditionalModel& model, const MatrixView& x) {
  return (input_projection(model.mixture) * model.mixture.x_scaling().transform_query(x, "x"))
      .transpose();
}

MethodEntry reduced_cde_method(ReducedCdeMethod method, std::string summary,
                               std::string python_class) {
  const bool on_epsilon_kde =
      method == ReducedCdeMethod::lsce_ekde || method == ReducedCdeMethod::lsmi_ekde;
  MethodEntry entry = conditional_method(
      to_string(method), std::move(summary), std::move(python_class), lsce_option_table(method),
      [method](const MatrixView& x, const MatrixView& y, const LsceOptions& options,
               const FitContext& context) { return fit_lsce(x, y, method, options, context); },
      {wrapping_gate_kind<ProjectedGate>("projected"),
       on_epsilon_kde ? gate_kind<EpsilonBallGate>("epsilon_ball") : gate_kind<LscdeGate>("lscde")},
      &reduced_cde_extras);
  entry.extras = {{"traces",
                   {"restarts", "*"},
                   method == ReducedCdeMethod::lsce || method == ReducedCdeMethod::lsce_ekde
                       ? "The SCE estimate after each update of W, one array per start"
                       : "Minus the SMI estimate after each update of W, one array per start"},
                  {"projection",
                   {"n_components", "d_x"},
                   "W, rows orthonormal, acting on the inputs standardised per dimension"}};
  entry.queries = {
      {{"transform", {"n", "n_components"}, "z = W x of each row, x standardised as in the fit"},
       &projected_inputs}};
  entry.test_options = {{"n_components", std::int64_t{1}},
                        {"n_restarts", std::int64_t{1}},
                        {"max_iter", std::int64_t{5}},
                        {"sigma", std::vector<double>{0.5}},
                        {"regularization", std::vector<double>{0.1}},
                        {"n_centers", std::int64_t{20}},
                        {"folds", std::int64_t{2}}};
  if (on_epsilon_kde) entry.test_options["epsilon"] = std::vector<double>{0.5};
  // The search's sums over rows and the LSCDE on z run on many ranks (docs/distributed.md).
  entry.distributed = !on_epsilon_kde;
  if (on_epsilon_kde) {
    entry.single_process_reason =
        "its e-KDE on z = Wx chooses its bandwidths by leave-one-out over all pairs";
  }
  return entry;
}

}  // namespace

std::vector<MethodEntry> reduced_cde_methods() {
  return {reduced_cde_method(ReducedCdeMethod::lsce, "LSCE: LSCDE on a learnt projection", "LSCE"),
          reduced_cde_method(ReducedCdeMethod::lsce_ekde, "LSCE's projection, then ε-KDE", "LSCE"),
          reduced_cde_method(ReducedCdeMethod::lsmi_lscde, "LSMI's projection, then LSCDE", "LSMI"),
          reduced_cde_method(ReducedCdeMethod::lsmi_ekde, "LSMI's projection, then ε-KDE", "LSMI")};
}

}  // namespace registry_internal
}  // namespace cdens

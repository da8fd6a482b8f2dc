// The options and registry entries of FW-LSCDE, FW-eKDE and FW-NWCDE: the wrapped estimator's
// options.

#include "conditional/kernel_gates.hpp"
#include "conditional/lscde_gate.hpp"
#include "conditional/selected_features_gate.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// InvalidArgument naming the grids `names` unless their `candidates` (the product of their
/// sizes) are more than one: the selection compares feature sets by the wrapped estimator's
/// cross-validated NLL, which a single candidate does not compute.
void require_several_candidates(std::size_t candidates, const std::string& names) {
  if (candidates < 2) {
    throw InvalidArgument("options " + names +
                          ": forward selection compares feature sets by the estimator's "
                          "cross-validated NLL, so the grids need more than one candidate in all");
  }
}

}  // namespace

const OptionTable<ForwardSelectionLscdeOptions>& fw_lscde_option_table() {
  using namespace registry_internal;
  using Options = ForwardSelectionLscdeOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add(sigma_grid(), &Options::estimator, CDENS_OPTION_FIELD(LscdeOptions, sigma));
    rows.add(lambda_grid(), &Options::estimator, CDENS_OPTION_FIELD(LscdeOptions, regularization));
    rows.add(n_centers_option(), &Options::estimator, CDENS_OPTION_FIELD(LscdeOptions, n_centers));
    rows.add(folds_option(), &Options::estimator, CDENS_OPTION_FIELD(LscdeOptions, folds));
    rows.add(seed_option(), &Options::estimator, CDENS_OPTION_FIELD(LscdeOptions, seed));
    rows.add_rule([](const Options& options) {
      require_several_candidates(
          options.estimator.sigma.size() * options.estimator.regularization.size(),
          "sigma, regularization");
    });
    return rows;
  }();
  return table;
}

const OptionTable<ForwardSelectionEkdeOptions>& fw_ekde_option_table() {
  using namespace registry_internal;
  using Options = ForwardSelectionEkdeOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add(epsilon_grid(), &Options::estimator, CDENS_OPTION_FIELD(EkdeOptions, epsilon));
    rows.add(sigma_grid(), &Options::estimator, CDENS_OPTION_FIELD(EkdeOptions, sigma));
    rows.add(folds_option(), &Options::estimator, CDENS_OPTION_FIELD(EkdeOptions, folds));
    rows.add(seed_option(), &Options::estimator, CDENS_OPTION_FIELD(EkdeOptions, seed));
    rows.add_rule([](const Options& options) {
      require_several_candidates(options.estimator.epsilon.size() * options.estimator.sigma.size(),
                                 "epsilon, sigma");
    });
    return rows;
  }();
  return table;
}

const OptionTable<ForwardSelectionNwcdeOptions>& fw_nwcde_option_table() {
  using namespace registry_internal;
  using Options = ForwardSelectionNwcdeOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add(sigma_grid(), &Options::estimator, CDENS_OPTION_FIELD(NwcdeOptions, sigma));
    // The selection compares candidates by NW-CDE's leave-one-out choice of σ, which leaves each
    // centre out of the others: two at least.
    OptionInfo centers = in_range(n_centers_option(), 2);
    centers.range_reason = ": NW-CDE chooses sigma by leaving each centre out of the others";
    rows.add(std::move(centers), &Options::estimator, CDENS_OPTION_FIELD(NwcdeOptions, n_centers));
    rows.add(seed_option(), &Options::estimator, CDENS_OPTION_FIELD(NwcdeOptions, seed));
    rows.add_rule([](const Options& options) {
      require_several_candidates(options.estimator.sigma.size(), "sigma");
    });
    return rows;
  }();
  return table;
}

namespace registry_internal {
namespace {

/// The gates of a forward selection model around an estimator whose gate is `estimator_gate`.
std::vector<GateKind> selection_gates(GateKind estimator_gate) {
  return {wrapping_gate_kind<SelectedFeaturesGate>("selected_features"), std::move(estimator_gate)};
}

}  // namespace

std::vector<MethodEntry> forward_selection_methods() {
  MethodEntry lscde = conditional_method("fw-lscde", "forward feature selection around LSCDE",
                                         "ForwardSelectionCDE", fw_lscde_option_table(),
                                         &fit_forward_selection_lscde,
                                         selection_gates(gate_kind<LscdeGate>("lscde")));
  // Every candidate's LSCDE fit sums over the ranks' rows.
  lscde.distributed = true;
  lscde.test_options = {{"sigma", std::vector<double>{0.5, 1.0}},
                        {"regularization", std::vector<double>{0.1}},
                        {"n_centers", std::int64_t{20}},
                        {"folds", std::int64_t{2}}};
  MethodEntry epsilon_kde =
      conditional_method("fw-ekde", "forward feature selection around ε-KDE", "ForwardSelectionCDE",
                         fw_ekde_option_table(), &fit_forward_selection_ekde,
                         selection_gates(gate_kind<EpsilonBallGate>("epsilon_ball")));
  epsilon_kde.test_options = {{"epsilon", std::vector<double>{0.5, 1.0}},
                              {"sigma", std::vector<double>{0.3}},
                              {"folds", std::int64_t{2}}};
  MethodEntry nadaraya_watson = conditional_method(
      "fw-nwcde", "forward feature selection around NW-CDE", "ForwardSelectionCDE",
      fw_nwcde_option_table(), &fit_forward_selection_nwcde,
      selection_gates(gate_kind<GaussianKernelGate>("gaussian_kernel")));
  nadaraya_watson.test_options = {{"sigma", std::vector<double>{0.5, 1.0}},
                                  {"n_centers", std::int64_t{20}}};
  return {std::move(lscde), std::move(epsilon_kde), std::move(nadaraya_watson)};
}

}  // namespace registry_internal
}  // namespace cdens

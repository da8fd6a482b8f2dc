// The options and registry entries of SA-CDE and SA-LSCDE (Shiga, Tangkaratt & Sugiyama 2015).

#include "conditional/lscde_gate.hpp"
#include "conditional/sacde_gate.hpp"
#include "conditional/selected_features_gate.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<SacdeOptions>& sacde_option_table() {
  using namespace registry_internal;
  static const OptionTable<SacdeOptions> table = [] {
    OptionTable<SacdeOptions> rows;
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(SacdeOptions, sigma));
    rows.add(lambda_grid(), CDENS_OPTION_FIELD(SacdeOptions, regularization));
    rows.add(n_centers_option(), CDENS_OPTION_FIELD(SacdeOptions, n_centers));
    rows.add(folds_option(), CDENS_OPTION_FIELD(SacdeOptions, folds));
    rows.add_choice(option("lambda_rule", OptionType::choice,
                           "How λ is taken from the cross-validation: min (the paper's: the "
                           "smallest mean held-out NLL) or 1se (ours: the σ of the minimum and "
                           "the largest λ within one standard error of it, the sparsest model "
                           "the cross-validation cannot tell from the best)"),
                    CDENS_OPTION_FIELD(SacdeOptions, lambda_rule),
                    {SaCdeLambdaRule::one_standard_error, SaCdeLambdaRule::minimum},
                    [](SaCdeLambdaRule rule) { return to_string(rule); });
    rows.add(positive(option("tol", OptionType::real,
                             "Stopping rule of the solver (block-coordinate descent): the largest "
                             "violation of the KKT conditions of eq. (16), relative to λ")),
             &SacdeOptions::solver, CDENS_OPTION_FIELD(GroupLassoOptions, tol));
    rows.add(seed_option(), CDENS_OPTION_FIELD(SacdeOptions, seed));
    // The solver's other settings: C++ only.
    rows.add(positive(library_only(
                 option("solver_tolerance", OptionType::real,
                        "A block's FISTA stops when the coefficients change by less than "
                        "this, relatively"))),
             &SacdeOptions::solver, CDENS_OPTION_FIELD(GroupLassoOptions, solver_tolerance));
    rows.add(in_range(library_only(option("solver_max_iterations", OptionType::integer,
                                          "Sweeps of one solve at most")),
                      1),
             &SacdeOptions::solver, CDENS_OPTION_FIELD(GroupLassoOptions, solver_max_iterations));
    rows.add(in_range(library_only(option("block_iterations", OptionType::integer,
                                          "FISTA iterations on one block per visit")),
                      1),
             &SacdeOptions::solver, CDENS_OPTION_FIELD(GroupLassoOptions, block_iterations));
    rows.add(in_range(library_only(option("extrapolation_interval", OptionType::integer,
                                          "Sweeps between extrapolation steps; 0 turns them off")),
                      0),
             &SacdeOptions::solver, CDENS_OPTION_FIELD(GroupLassoOptions, extrapolation_interval));
    return rows;
  }();
  return table;
}

const OptionTable<SalscdeOptions>& salscde_option_table() {
  using namespace registry_internal;
  static const OptionTable<SalscdeOptions> table = [] {
    OptionTable<SalscdeOptions> rows;
    // Each row sets the same option of both stages, as the paper's experiments do (§3.1).
    using Options = SalscdeOptions;
    rows.add_to_both(sigma_grid(), &Options::selection, CDENS_OPTION_FIELD(SacdeOptions, sigma),
                     &Options::estimation, CDENS_OPTION_FIELD(LscdeOptions, sigma));
    rows.add_to_both(lambda_grid(), &Options::selection,
                     CDENS_OPTION_FIELD(SacdeOptions, regularization), &Options::estimation,
                     CDENS_OPTION_FIELD(LscdeOptions, regularization));
    rows.add_to_both(n_centers_option(), &Options::selection,
                     CDENS_OPTION_FIELD(SacdeOptions, n_centers), &Options::estimation,
                     CDENS_OPTION_FIELD(LscdeOptions, n_centers));
    rows.add_to_both(folds_option(), &Options::selection, CDENS_OPTION_FIELD(SacdeOptions, folds),
                     &Options::estimation, CDENS_OPTION_FIELD(LscdeOptions, folds));
    rows.add_to_both(seed_option(), &Options::selection, CDENS_OPTION_FIELD(SacdeOptions, seed),
                     &Options::estimation, CDENS_OPTION_FIELD(LscdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry sacde_method() {
  MethodEntry entry =
      conditional_method("sacde", "sparse additive conditional density estimation", "SACDE",
                         sacde_option_table(), &fit_sacde, {gate_kind<SaCdeGate>("sacde")});
  entry.distributed = true;
  entry.test_options = {{"sigma", std::vector<double>{0.5, 1.0}},
                        {"regularization", std::vector<double>{0.1}},
                        {"n_centers", std::int64_t{30}},
                        {"folds", std::int64_t{2}}};
  return entry;
}

MethodEntry salscde_method() {
  MethodEntry entry =
      conditional_method("salscde", "SA-CDE selects the features, LSCDE estimates p(y|x)",
                         "SALSCDE", salscde_option_table(), &fit_salscde,
                         {wrapping_gate_kind<SelectedFeaturesGate>("selected_features"),
                          gate_kind<LscdeGate>("lscde")});
  // Both stages sum over the ranks' rows.
  entry.distributed = true;
  entry.test_options = {{"sigma", std::vector<double>{0.5, 1.0}},
                        {"regularization", std::vector<double>{0.1}},
                        {"n_centers", std::int64_t{30}},
                        {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

// The options and registry entries of the density estimators p(x): Parzen window, GMM, RSDE,
// SKD and GSKD.

#include "kernel_sums/gaussian_kernel.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {
namespace {

/// γ_Parz of the Parzen target of SKD and GSKD (eq. 23): at least 10⁻⁴, where a target of
/// spikes on the samples left the weights of both fits unnormalised (measured on 60 samples in
/// 2-D: 10⁻⁶ gave weights summing to 1 + 4·10⁻⁷, 10⁻⁸ to 1.034).
OptionInfo target_width_option() {
  using namespace registry_internal;
  OptionInfo info = none_by_default(in_range(option("target_bandwidth", OptionType::real,
                                                    "Width of the Parzen target (standardised "
                                                    "units); by default the Parzen window's "
                                                    "leave-one-out likelihood choice"),
                                             1e-4, kWidestKernelWidth));
  info.range_reason = ": a narrower target is a spike on every sample, which the fit cannot match";
  return info;
}

/// SKD's candidate widths: within [10⁻², 10³] (standardised units), where the selection finds a
/// kernel and the weights stay normalised (measured on 60 samples in 2-D: 10⁻³ left every
/// candidate column refused, 10⁴ gave weights off 1 by rounding, 10⁸ no kernel).
OptionInfo skd_width_grid() {
  using namespace registry_internal;
  OptionInfo info = in_range(width_grid(), 1e-2, 1e3);
  info.range_reason =
      ": a narrower kernel leaves no column for the selection to add, a wider one weights that "
      "do not sum to 1";
  return info;
}

/// GSKD's bounds of the kernel variances, multiples of a variance of the data: positive and at
/// most a million (a bound of 1e300 let the kernels' normalising constants underflow into
/// weights that summed to 1e130).
OptionInfo variance_multiples(OptionInfo info) {
  info = registry_internal::in_range(std::move(info), 0.0, 1e6, true);
  info.range_reason =
      ": a kernel a thousand times wider than the data is flat on them, and a far wider one's "
      "normalising constant underflows";
  return info;
}

}  // namespace

const OptionTable<ParzenOptions>& parzen_option_table() {
  using namespace registry_internal;
  static const OptionTable<ParzenOptions> table = [] {
    OptionTable<ParzenOptions> rows;
    // Unlike the other density methods' grids, the default is no grid but a search.
    rows.add(none_by_default(
                 kernel_widths(option("bandwidth", OptionType::real_list,
                                      "Candidate widths (standardised units), a plain grid search; "
                                      "by default a search of 25 widths in 0.01 … 3 whose best is "
                                      "refined by golden section"))),
             CDENS_OPTION_FIELD(ParzenOptions, bandwidth));
    rows.add_choice(option("criterion", OptionType::choice,
                           "Width criterion: loo_likelihood or least_squares (leave-one-out ISE)"),
                    CDENS_OPTION_FIELD(ParzenOptions, criterion),
                    {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares},
                    [](ParzenCriterion criterion) { return to_string(criterion); });
    rows.add(option("per_dimension", OptionType::boolean,
                    "One width per dimension, all chosen by the leave-one-out likelihood "
                    "(L-BFGS on the log-widths), which needs the loo_likelihood criterion and "
                    "no grid of widths; off: the paper's single width"),
             CDENS_OPTION_FIELD(ParzenOptions, per_dimension));
    rows.add(standardize_option(), CDENS_OPTION_FIELD(ParzenOptions, standardize));
    // The search's settings: C++ only.
    OptionInfo search_bounds = kernel_widths(library_only(
        option("search_bounds", OptionType::real_pair,
               "Without a grid of widths: the interval [lower, upper] of the search's widths, "
               "evenly spaced in log")));
    search_bounds.ordered = true;
    rows.add_pair(std::move(search_bounds), CDENS_OPTION_FIELD(ParzenOptions, search_lower),
                  CDENS_OPTION_FIELD(ParzenOptions, search_upper));
    rows.add(in_range(library_only(
                          option("search_points", OptionType::integer,
                                 "Without a grid of widths: the widths the search scores before "
                                 "refining the best")),
                      2),
             CDENS_OPTION_FIELD(ParzenOptions, search_points));
    rows.add(positive(library_only(
                 option("refine_tolerance", OptionType::real,
                        "The golden-section refinement stops when its bracket is narrower "
                        "than this, relative to the width"))),
             CDENS_OPTION_FIELD(ParzenOptions, refine_tolerance));
    rows.add_rule([](const ParzenOptions& options) {
      if (!options.per_dimension) return;
      if (options.criterion != ParzenCriterion::leave_one_out_likelihood) {
        throw InvalidArgument(
            "per-dimension Parzen widths are chosen by the leave-one-out likelihood; the "
            "least_squares criterion takes one width (per_dimension, criterion)");
      }
      if (!options.bandwidth.empty()) {
        throw InvalidArgument(
            "per-dimension Parzen widths are searched; a width grid is for one width "
            "(per_dimension, bandwidth)");
      }
    });
    return rows;
  }();
  return table;
}

const OptionTable<GmmOptions>& gmm_option_table() {
  using namespace registry_internal;
  static const OptionTable<GmmOptions> table = [] {
    OptionTable<GmmOptions> rows;
    rows.add(
        in_range(option("n_components", OptionType::integer, "Number of mixture components"), 1),
        CDENS_OPTION_FIELD(GmmOptions, n_components));
    rows.add_choice(option("init", OptionType::choice,
                           "Start of EM: kmeans++ seeding, or box (the paper's: centres uniform "
                           "in the box, equal weights, every variance the initial variance)"),
                    CDENS_OPTION_FIELD(GmmOptions, init),
                    {GmmInitialization::kmeans_plus_plus, GmmInitialization::box},
                    [](GmmInitialization initialization) { return to_string(initialization); });
    rows.add(
        in_range(option("n_init", OptionType::integer,
                        "EM runs from different starts; the one of largest likelihood is kept"),
                 1),
        CDENS_OPTION_FIELD(GmmOptions, n_init));
    rows.add(positive(option("variance_floor", OptionType::real,
                             "Lower bound γ²_min on every variance")),
             CDENS_OPTION_FIELD(GmmOptions, variance_floor));
    rows.add(positive(option("tol", OptionType::real,
                             "EM stops when the mean log-likelihood rises by less than this")),
             CDENS_OPTION_FIELD(GmmOptions, tol));
    rows.add(in_range(option("max_iter", OptionType::integer, "EM iterations at most"), 0),
             CDENS_OPTION_FIELD(GmmOptions, max_iter));
    OptionInfo box = option("box", OptionType::real_pair, "The box [a, b] of the box start");
    box.ordered = true;
    rows.add_pair(std::move(box), CDENS_OPTION_FIELD(GmmOptions, box_lower),
                  CDENS_OPTION_FIELD(GmmOptions, box_upper));
    rows.add(positive(option("initial_variance", OptionType::real,
                             "γ²_ini, every variance of the box start")),
             CDENS_OPTION_FIELD(GmmOptions, initial_variance));
    rows.add(standardize_option(), CDENS_OPTION_FIELD(GmmOptions, standardize));
    rows.add(seed_option(), CDENS_OPTION_FIELD(GmmOptions, seed));
    return rows;
  }();
  return table;
}

const OptionTable<RsdeOptions>& rsde_option_table() {
  using namespace registry_internal;
  static const OptionTable<RsdeOptions> table = [] {
    OptionTable<RsdeOptions> rows;
    rows.add(width_grid(), CDENS_OPTION_FIELD(RsdeOptions, bandwidth));
    rows.add(folds_option(), CDENS_OPTION_FIELD(RsdeOptions, folds));
    rows.add_choice(option("solver", OptionType::choice,
                           "Solver of the weights' quadratic programme: smo (Girolami & He's "
                           "sequential minimal optimisation, exact zeros, fast on sparse "
                           "solutions) or mnqp (the multiplicative updates of Chen, Hong & Harris "
                           "2010, which stop at their iteration bound on dense problems)"),
                    &RsdeOptions::mnqp, CDENS_OPTION_FIELD(MnqpOptions, solver),
                    {SimplexQpSolver::smo, SimplexQpSolver::mnqp},
                    [](SimplexQpSolver solver) { return to_string(solver); });
    rows.add(standardize_option(), CDENS_OPTION_FIELD(RsdeOptions, standardize));
    rows.add(seed_option(), CDENS_OPTION_FIELD(RsdeOptions, seed));
    return rows;
  }();
  return table;
}

const OptionTable<SkdOptions>& skd_option_table() {
  using namespace registry_internal;
  static const OptionTable<SkdOptions> table = [] {
    OptionTable<SkdOptions> rows;
    rows.add(skd_width_grid(), CDENS_OPTION_FIELD(SkdOptions, bandwidth));
    rows.add(target_width_option(), CDENS_OPTION_FIELD(SkdOptions, target_bandwidth));
    rows.add(folds_option(), CDENS_OPTION_FIELD(SkdOptions, folds));
    rows.add(standardize_option(), CDENS_OPTION_FIELD(SkdOptions, standardize));
    rows.add(seed_option(), CDENS_OPTION_FIELD(SkdOptions, seed));
    // The selection's settings: C++ only.
    rows.add(positive(library_only(option("initial_regularization", OptionType::real,
                                          "Initial value of every local regulariser λ_j"))),
             CDENS_OPTION_FIELD(SkdOptions, initial_regularization));
    rows.add(in_range(library_only(option(
                          "regularization_passes", OptionType::integer,
                          "Selection passes with the regularisers updated in between, at most")),
                      1),
             CDENS_OPTION_FIELD(SkdOptions, regularization_passes));
    rows.add(in_range(library_only(
                          option("max_kernels", OptionType::integer, "Kernels selected at most")),
                      1),
             CDENS_OPTION_FIELD(SkdOptions, max_kernels));
    return rows;
  }();
  return table;
}

const OptionTable<GskdOptions>& gskd_option_table() {
  using namespace registry_internal;
  static const OptionTable<GskdOptions> table = [] {
    OptionTable<GskdOptions> rows;
    rows.add(target_width_option(), CDENS_OPTION_FIELD(GskdOptions, target_bandwidth));
    // RWBS needs P_S ≥ 2 and N_G ≥ 1 (rwbs.cpp); 0 stands for the paper's setting.
    const auto rwbs_setting = [&rows](OptionField<GskdOptions, int> field, std::string doc,
                                      int minimum) {
      rows.add(none_by_default(
                   in_range(option(field.name, OptionType::integer, std::move(doc)), minimum)),
               field);
    };
    rwbs_setting(CDENS_OPTION_FIELD(GskdOptions, population),
                 "RWBS population P_S; by default the paper's (10 in 1-D, 20 in 2-D, 40 above)", 2);
    rwbs_setting(CDENS_OPTION_FIELD(GskdOptions, generations),
                 "RWBS generations N_G; by default the paper's 10", 1);
    rwbs_setting(CDENS_OPTION_FIELD(GskdOptions, iterations),
                 "RWBS iterations M_I per generation; by default the paper's (200 up to 2-D, 400 "
                 "above)",
                 0);
    // An unordered pair (OptionInfo::ordered false): its numbers multiply two different variances,
    // so (2, 0.5) is the box [2 γ²_Parz, 0.5 s²] like any other (gskd_box caps the lower bound at
    // half the upper).
    rows.add_pair(
        variance_multiples(option(
            "variance_bounds", OptionType::real_pair,
            "The box of every kernel variance: at least the first number times the Parzen "
            "target's variance, at most the second times the dimension's sample variance. The two "
            "multiply different variances, so either may be the larger (2, 0.5: from twice the "
            "target's variance to half the sample variance); the lower bound is capped at half "
            "the upper")),
        CDENS_OPTION_FIELD(GskdOptions, variance_lower),
        CDENS_OPTION_FIELD(GskdOptions, variance_upper));
    rows.add_choice(option("stopping", OptionType::choice,
                           "When the construction stops: holdout (stage count and upper variance "
                           "bound by K-fold hold-out of the integrated squared error, a "
                           "departure from the paper, whose eq. (38) rarely stops on its "
                           "noise-free Parzen target) or paper (eq. 38, J_{n+1} ≥ J_n, upper "
                           "bound from variance_bounds)"),
                    CDENS_OPTION_FIELD(GskdOptions, stopping),
                    {GskdStopping::holdout, GskdStopping::paper},
                    [](GskdStopping stopping) { return to_string(stopping); });
    // An upper bound below a hundredth of the variance left RWBS no admissible kernel (10⁻⁶),
    // no kernel (10⁻⁴) or weights summing to 1.5·10⁵ (10⁻³), measured on 60 samples in 2-D.
    OptionInfo upper_grid = in_range(
        none_by_default(option("variance_upper_grid", OptionType::real_list,
                               "stopping=holdout: candidate upper bounds of the kernel variances, "
                               "times each dimension's sample variance")),
        1e-2, 1e6);
    upper_grid.range_reason =
        ": a kernel a thousand times wider than the data is flat on them, and one far narrower "
        "than them leaves the construction no admissible kernel";
    rows.add(std::move(upper_grid), CDENS_OPTION_FIELD(GskdOptions, variance_upper_grid));
    rows.add_choice(option("stage_rule", OptionType::choice,
                           "stopping=holdout: how the stage count is taken from the hold-out "
                           "table: min (the minimum) or 1se (at the best bound, the fewest "
                           "stages within one standard error of the minimum: about half the "
                           "kernels, at a higher L1 error in 1-D and 2-D)"),
                    CDENS_OPTION_FIELD(GskdOptions, stage_rule),
                    {GskdStageRule::minimum, GskdStageRule::one_standard_error},
                    [](GskdStageRule rule) { return to_string(rule); });
    rows.add(in_range(option("holdout_subsample", OptionType::integer,
                             "stopping=holdout: above this many samples the hold-out runs on a "
                             "random subsample of this size and only the final construction on "
                             "all of them (a departure for large N); 0: the hold-out on every "
                             "sample"),
                      0),
             CDENS_OPTION_FIELD(GskdOptions, holdout_subsample));
    rows.add(folds_option(), CDENS_OPTION_FIELD(GskdOptions, folds));
    rows.add(standardize_option(), CDENS_OPTION_FIELD(GskdOptions, standardize));
    rows.add(seed_option(), CDENS_OPTION_FIELD(GskdOptions, seed));
    // The construction's settings: C++ only.
    rows.add(
        in_range(library_only(option("regularization", OptionType::real,
                                     "λ of eqs. (36), (65); 0 or a very small value (§III-A)")),
                 0),
        CDENS_OPTION_FIELD(GskdOptions, regularization));
    rows.add(in_range(library_only(option("max_kernels", OptionType::integer,
                                          "Kernels constructed at most")),
                      1),
             CDENS_OPTION_FIELD(GskdOptions, max_kernels));
    rows.add(
        in_range(library_only(option("patience", OptionType::integer,
                                     "stopping=holdout: a fold's construction stops once this many "
                                     "stages in a row have not lowered its held-out error")),
                 1),
        CDENS_OPTION_FIELD(GskdOptions, patience));
    rows.add_rule([](const GskdOptions& options) {
      if (options.stopping == GskdStopping::holdout && options.holdout_subsample != 0 &&
          options.holdout_subsample < 2 * options.folds) {
        throw InvalidArgument(
            "option holdout_subsample must be 0 (every sample) or at least 2 per fold, " +
            std::to_string(2 * options.folds) + " for " + std::to_string(options.folds) + " folds");
      }
    });
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry parzen_method() {
  MethodEntry entry = density_method("parzen", "Parzen window with a cross-validated width",
                                     "ParzenWindow", parzen_option_table(), &fit_parzen);
  entry.sample_weights = true;
  entry.test_options = {{"bandwidth", std::vector<double>{0.2, 0.4, 0.8}}};
  return entry;
}

MethodEntry gmm_method() {
  MethodEntry entry = density_method("gmm", "diagonal Gaussian mixture fitted by EM", "GMM",
                                     gmm_option_table(), &fit_gmm);
  entry.distributed = true;
  entry.sample_weights = true;
  entry.test_options = {{"n_components", std::int64_t{2}},
                        {"n_init", std::int64_t{1}},
                        {"max_iter", std::int64_t{50}}};
  return entry;
}

MethodEntry rsde_method() {
  MethodEntry entry = density_method("rsde", "reduced set density estimator", "RSDE",
                                     rsde_option_table(), &fit_rsde);
  entry.sample_weights = true;
  entry.test_options = {{"bandwidth", std::vector<double>{0.3, 0.6}}, {"folds", std::int64_t{2}}};
  return entry;
}

MethodEntry skd_method() {
  MethodEntry entry = density_method("skd", "sparse kernel density estimator, fixed kernels", "SKD",
                                     skd_option_table(), &fit_skd);
  entry.sample_weights = true;
  entry.test_options = {{"bandwidth", std::vector<double>{0.3, 0.6}},
                        {"target_bandwidth", 0.3},
                        {"folds", std::int64_t{2}}};
  return entry;
}

MethodEntry gskd_method() {
  MethodEntry entry = density_method("gskd", "sparse kernel density estimator, tunable kernels",
                                     "GSKD", gskd_option_table(), &fit_gskd);
  entry.sample_weights = true;
  entry.test_options = {{"target_bandwidth", 0.3},
                        {"population", std::int64_t{4}},
                        {"generations", std::int64_t{2}},
                        {"iterations", std::int64_t{20}},
                        {"variance_upper_grid", std::vector<double>{1.0}},
                        {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

// The options and registry entries of the density estimators p(x): Parzen window, GMM, RSDE,
// SKD and GSKD.

#include "cdens/methods/option_tables.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"

namespace cdens {
namespace {

/// γ_Parz of the Parzen target of SKD and GSKD (eq. 23).
OptionInfo target_width_option() {
  using namespace registry_internal;
  return none_by_default(kernel_widths(option("target_width", OptionType::real,
                                              "Width of the Parzen target (standardised units); by "
                                              "default the Parzen window's leave-one-out "
                                              "likelihood choice",
                                              "--target-width", "target_bandwidth")),
                         "target_width");
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
                 kernel_widths(option("widths", OptionType::real_list,
                                      "Candidate widths (standardised units), a plain grid search; "
                                      "by default a search of 25 widths in 0.01 … 3 whose best is "
                                      "refined by golden section",
                                      "--width", "bandwidth")),
                 "width"),
             &ParzenOptions::widths);
    rows.add_choice(option("criterion", OptionType::choice,
                           "Width criterion: loo_likelihood or least_squares (leave-one-out ISE)",
                           "--criterion", "criterion"),
                    &ParzenOptions::criterion,
                    {ParzenCriterion::leave_one_out_likelihood, ParzenCriterion::least_squares},
                    [](ParzenCriterion criterion) { return to_string(criterion); });
    rows.add(option("per_dimension", OptionType::boolean,
                    "One width per dimension, all chosen by the leave-one-out likelihood "
                    "(L-BFGS on the log-widths), which needs the loo_likelihood criterion and "
                    "no grid of widths; off: the paper's single width",
                    "--per-dimension", "per_dimension"),
             &ParzenOptions::per_dimension);
    rows.add(standardize_option(), &ParzenOptions::standardize);
    rows.add(threads_option(), &ParzenOptions::threads);
    return rows;
  }();
  return table;
}

const OptionTable<GmmOptions>& gmm_option_table() {
  using namespace registry_internal;
  static const OptionTable<GmmOptions> table = [] {
    OptionTable<GmmOptions> rows;
    rows.add(in_range(option("n_components", OptionType::integer, "Number of mixture components",
                             "--components", "n_components"),
                      1),
             &GmmOptions::n_components);
    rows.add_choice(option("initialization", OptionType::choice,
                           "Start of EM: kmeans++ seeding, or box (the paper's: centres uniform "
                           "in the box, equal weights, every variance the initial variance)",
                           "--init", "init"),
                    &GmmOptions::initialization,
                    {GmmInitialization::kmeans_plus_plus, GmmInitialization::box},
                    [](GmmInitialization initialization) { return to_string(initialization); });
    rows.add(in_range(option("n_init", OptionType::integer,
                             "EM runs from different starts; the one of largest likelihood is kept",
                             "--n-init", "n_init"),
                      1),
             &GmmOptions::n_init);
    rows.add(
        positive(option("variance_floor", OptionType::real, "Lower bound γ²_min on every variance",
                        "--variance-floor", "variance_floor")),
        &GmmOptions::variance_floor);
    rows.add(positive(option("tolerance", OptionType::real,
                             "EM stops when the mean log-likelihood rises by less than this",
                             "--tol", "tol")),
             &GmmOptions::tolerance);
    rows.add(in_range(option("max_iterations", OptionType::integer, "EM iterations at most",
                             "--max-iter", "max_iter"),
                      0),
             &GmmOptions::max_iterations);
    rows.add(
        option("box", OptionType::real_pair, "The box [a, b] of the box start", "--box", "box"),
        [](const GmmOptions& options) {
          return OptionValue(std::vector<double>{options.box_lower, options.box_upper});
        },
        [](GmmOptions& options, const OptionValue& value) {
          const auto& bounds = std::get<std::vector<double>>(value);
          options.box_lower = bounds[0];
          options.box_upper = bounds[1];
        });
    rows.add(positive(option("initial_variance", OptionType::real,
                             "γ²_ini, every variance of the box start", "--initial-variance",
                             "initial_variance")),
             &GmmOptions::initial_variance);
    rows.add(standardize_option(), &GmmOptions::standardize);
    rows.add(seed_option(), &GmmOptions::seed);
    rows.add(threads_option(), &GmmOptions::threads);
    return rows;
  }();
  return table;
}

const OptionTable<RsdeOptions>& rsde_option_table() {
  using namespace registry_internal;
  static const OptionTable<RsdeOptions> table = [] {
    OptionTable<RsdeOptions> rows;
    rows.add(width_grid(), &RsdeOptions::widths);
    rows.add(folds_option(), &RsdeOptions::folds);
    rows.add(standardize_option(), &RsdeOptions::standardize);
    rows.add(seed_option(), &RsdeOptions::seed);
    rows.add(threads_option(), &RsdeOptions::threads);
    return rows;
  }();
  return table;
}

const OptionTable<SkdOptions>& skd_option_table() {
  using namespace registry_internal;
  static const OptionTable<SkdOptions> table = [] {
    OptionTable<SkdOptions> rows;
    rows.add(width_grid(), &SkdOptions::widths);
    rows.add(target_width_option(), &SkdOptions::target_width);
    rows.add(folds_option(), &SkdOptions::folds);
    rows.add(standardize_option(), &SkdOptions::standardize);
    rows.add(seed_option(), &SkdOptions::seed);
    rows.add(threads_option(), &SkdOptions::threads);
    return rows;
  }();
  return table;
}

const OptionTable<GskdOptions>& gskd_option_table() {
  using namespace registry_internal;
  static const OptionTable<GskdOptions> table = [] {
    OptionTable<GskdOptions> rows;
    rows.add(target_width_option(), &GskdOptions::target_width);
    const auto rwbs_setting = [&rows](std::string name, std::string doc, int GskdOptions::*field) {
      rows.add(
          none_by_default(option(name, OptionType::integer, std::move(doc), "--" + name, name)),
          field);
    };
    rwbs_setting("population",
                 "RWBS population P_S; by default the paper's (10 in 1-D, 20 in 2-D, "
                 "40 above)",
                 &GskdOptions::population);
    rwbs_setting("generations", "RWBS generations N_G; by default the paper's 10",
                 &GskdOptions::generations);
    rwbs_setting("iterations",
                 "RWBS iterations M_I per generation; by default the paper's (200 "
                 "up to 2-D, 400 above)",
                 &GskdOptions::iterations);
    rows.add(
        variance_multiples(
            option("variance_bounds", OptionType::real_pair,
                   "The box of every kernel variance: at least the first number times the Parzen "
                   "target's variance, at most the second times the dimension's sample variance",
                   "--variance-bounds", "variance_bounds")),
        [](const GskdOptions& options) {
          return OptionValue(std::vector<double>{options.variance_lower, options.variance_upper});
        },
        [](GskdOptions& options, const OptionValue& value) {
          const auto& bounds = std::get<std::vector<double>>(value);
          options.variance_lower = bounds[0];
          options.variance_upper = bounds[1];
        });
    rows.add_choice(option("stopping", OptionType::choice,
                           "When the construction stops: holdout (stage count and upper variance "
                           "bound by K-fold hold-out of the integrated squared error, a "
                           "departure from the paper, whose eq. (38) rarely stops on its "
                           "noise-free Parzen target) or paper (eq. 38, J_{n+1} ≥ J_n, upper "
                           "bound from variance_bounds)",
                           "--stopping", "stopping"),
                    &GskdOptions::stopping, {GskdStopping::holdout, GskdStopping::paper},
                    [](GskdStopping stopping) { return to_string(stopping); });
    rows.add(variance_multiples(none_by_default(option(
                 "variance_upper_grid", OptionType::real_list,
                 "stopping=holdout: candidate upper bounds of the kernel variances, times each "
                 "dimension's sample variance",
                 "--variance-upper-grid", "variance_upper_grid"))),
             &GskdOptions::variance_upper_candidates);
    rows.add_choice(option("stage_rule", OptionType::choice,
                           "stopping=holdout: how the stage count is taken from the hold-out "
                           "table: min (the minimum) or 1se (at the best bound, the fewest "
                           "stages within one standard error of the minimum: about half the "
                           "kernels, at a higher L1 error in 1-D and 2-D)",
                           "--stage-rule", "stage_rule"),
                    &GskdOptions::stage_rule,
                    {GskdStageRule::minimum, GskdStageRule::one_standard_error},
                    [](GskdStageRule rule) { return to_string(rule); });
    rows.add(in_range(option("holdout_subsample", OptionType::integer,
                             "stopping=holdout: above this many samples the hold-out runs on a "
                             "random subsample of this size and only the final construction on "
                             "all of them (a departure for large N); 0: the hold-out on every "
                             "sample",
                             "--holdout-subsample", "holdout_subsample"),
                      0),
             &GskdOptions::holdout_subsample);
    rows.add(folds_option(), &GskdOptions::folds);
    rows.add(standardize_option(), &GskdOptions::standardize);
    rows.add(seed_option(), &GskdOptions::seed);
    rows.add(threads_option(), &GskdOptions::threads);
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry parzen_method() {
  MethodEntry entry = density_method("parzen", "Parzen window with a cross-validated width",
                                     "ParzenWindow", parzen_option_table(), &fit_parzen);
  entry.deprecated_names = {"pw"};
  entry.sample_weights = true;
  return entry;
}

MethodEntry gmm_method() {
  MethodEntry entry = density_method("gmm", "diagonal Gaussian mixture fitted by EM", "GMM",
                                     gmm_option_table(), &fit_gmm);
  entry.distributed = true;
  entry.sample_weights = true;
  return entry;
}

MethodEntry rsde_method() {
  return density_method("rsde", "reduced set density estimator", "RSDE", rsde_option_table(),
                        &fit_rsde);
}

MethodEntry skd_method() {
  return density_method("skd", "sparse kernel density estimator, fixed kernels", "SKD",
                        skd_option_table(), &fit_skd);
}

MethodEntry gskd_method() {
  return density_method("gskd", "sparse kernel density estimator, tunable kernels", "GSKD",
                        gskd_option_table(), &fit_gskd);
}

}  // namespace registry_internal
}  // namespace cdens

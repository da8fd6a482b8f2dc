// The options and registry entries of KCDE (per-dimension bandwidths by leave-one-out
// likelihood) and of the linear-Gaussian baseline.

#include "cdens/conditional/kcde.hpp"
#include "cdens/conditional/linear.hpp"
#include "conditional/broad_component_gate.hpp"
#include "conditional/constant_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<KcdeOptions>& kcde_option_table() {
  using namespace registry_internal;
  using Options = KcdeOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    // Positive here; the fit checks each value against its column's own range (a Gaussian
    // width, or the λ of a discrete column) and names the column.
    OptionInfo bandwidths = none_by_default(positive(
        option("bandwidth", OptionType::real_list,
               "Fixed bandwidths (standardised units), one per input then one per output "
               "(lambda for a discrete column); by default chosen by leave-one-out likelihood")));
    bandwidths.per_column = true;
    rows.add(std::move(bandwidths), CDENS_OPTION_FIELD(Options, bandwidth));
    rows.add(declared_columns_option("discrete",
                                     "Unordered (categorical) columns: Aitchison-Aitken kernels "
                                     "over their values, lambda searched with the bandwidths"),
             CDENS_OPTION_FIELD(Options, discrete));
    rows.add(declared_columns_option("ordered",
                                     "Ordered discrete columns (integer levels): Wang-van Ryzin "
                                     "kernels, lambda searched with the bandwidths"),
             CDENS_OPTION_FIELD(Options, ordered));
    rows.add_choice(option("trend", OptionType::choice,
                           "Centre the output kernels on the outputs (none), on their "
                           "residuals around a least-squares line (linear), or on the "
                           "standardised leave-one-out residuals of a Gaussian-process mean with "
                           "one length scale per input, scaled by its predictive spread (gp)"),
                    CDENS_OPTION_FIELD(Options, trend),
                    {KernelTrend::none, KernelTrend::linear, KernelTrend::gaussian_process},
                    [](KernelTrend trend) { return to_string(trend); });
    rows.add_choice(output_transform_option(), CDENS_OPTION_FIELD(Options, y_transform),
                    output_transform_choices(),
                    [](OutputTransformChoice choice) { return to_string(choice); });
    rows.add(in_range(option("trend_basis", OptionType::integer,
                             "With trend gp: the pairs of the process's basis and marginal "
                             "likelihood, all up to this many, else a random subset"),
                      2),
             CDENS_OPTION_FIELD(Options, trend_basis));
    rows.add_choice(option("marginal_mixing", OptionType::choice,
                           "Mix the estimate with its marginal counterpart (the same kernels of y "
                           "with equal weights), the weight by leave-one-out likelihood (loo), or "
                           "not (none: the estimator of Hall, Racine & Li as written)"),
                    CDENS_OPTION_FIELD(Options, marginal_mixing),
                    {MarginalMixing::loo, MarginalMixing::none},
                    [](MarginalMixing mixing) { return to_string(mixing); });
    rows.add(output_atom_option(
                 "P(y = a | x) is the kernel weight of the pairs at it, with the same bandwidths "
                 "(none: the estimator as written; not with a trend or transform)"),
             CDENS_OPTION_FIELD(Options, atom));
    rows.add(
        in_range(
            option("exact_limit", OptionType::integer,
                   "Up to this many pairs the criterion is exact leave-one-out over every pair"),
            0),
        CDENS_OPTION_FIELD(Options, exact_limit));
    rows.add(
        in_range(option("subsample_held_out", OptionType::integer,
                        "Beyond exact_limit, the criterion averages over this many random pairs, "
                        "each predicted from all others"),
                 1),
        CDENS_OPTION_FIELD(Options, subsample_held_out));
    rows.add(
        in_range(option("screening_held_out", OptionType::integer,
                        "The random starts run on the criterion over this many held-out pairs; the "
                        "best is then polished on the full criterion"),
                 1),
        CDENS_OPTION_FIELD(Options, screening_held_out));
    rows.add(in_range(option("n_restarts", OptionType::integer,
                             "Random starts of the search besides the normal-reference one"),
                      0),
             &Options::search, CDENS_OPTION_FIELD(BandwidthSearchOptions, n_restarts));
    OptionInfo bandwidth_bounds = kernel_widths(
        option("bandwidth_bounds", OptionType::real_pair,
               "The box [lower, upper] of every bandwidth in the search (standardised units)"));
    bandwidth_bounds.ordered = true;
    rows.add_pair(std::move(bandwidth_bounds), &Options::search,
                  CDENS_OPTION_FIELD(BandwidthSearchOptions, lower),
                  CDENS_OPTION_FIELD(BandwidthSearchOptions, upper));
    rows.add(
        in_range(option("max_iter", OptionType::integer, "Criterion evaluations per start at most"),
                 1),
        &Options::search, CDENS_OPTION_FIELD(BandwidthSearchOptions, max_iter));
    rows.add(seed_option(), &Options::search, CDENS_OPTION_FIELD(BandwidthSearchOptions, seed));
    return rows;
  }();
  return table;
}

const OptionTable<LinearOptions>& linear_option_table() {
  using namespace registry_internal;
  using Options = LinearOptions;
  static const OptionTable<Options> table = [] {
    OptionTable<Options> rows;
    rows.add_choice(
        option("variance", OptionType::choice,
               "Each output's spread: the same at every x (constant), log-linear in "
               "x (log_linear), or per output the one with the lower leave-one-out "
               "NLL (auto)"),
        CDENS_OPTION_FIELD(Options, variance),
        {LinearVariance::constant, LinearVariance::log_linear, LinearVariance::automatic},
        [](LinearVariance variance) { return to_string(variance); });
    rows.add_choice(output_transform_option(), CDENS_OPTION_FIELD(Options, y_transform),
                    output_transform_choices(),
                    [](OutputTransformChoice choice) { return to_string(choice); });
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry kcde_method() {
  MethodEntry entry = conditional_method(
      "kcde", "kernel CDE with one bandwidth per dimension by leave-one-out likelihood",
      "KernelCDE", kcde_option_table(), &fit_kcde,
      {gate_kind<ProductKernelGate>("product_kernel"),
       wrapping_gate_kind<BroadComponentGate>("broad_component")});
  entry.sample_weights = true;
  entry.weights_refused = [](const OptionValues& values, bool) {
    const auto trend = values.find("trend");
    if (trend != values.end() && std::get<std::string>(trend->second) == "gp") {
      return std::string("a Gaussian-process trend takes no sample weights");
    }
    return output_transform_refuses_weights(values);
  };
  // Its criterion's kernel sums, the Gaussian-process trend's Gram and the transform's least
  // squares are sums over the rows (docs/distributed.md).
  entry.distributed = true;
  entry.test_options = {{"n_restarts", std::int64_t{0}}, {"max_iter", std::int64_t{50}}};
  return entry;
}

MethodEntry linear_method() {
  MethodEntry entry = conditional_method(
      "linear",
      "linear-Gaussian baseline y | x ~ N(a + A x, diag s(x)²), s constant or log-linear in x",
      "LinearGaussianCDE", linear_option_table(), &fit_linear,
      {gate_kind<ConstantGate>("constant")});
  entry.sample_weights = true;
  entry.weights_refused = [](const OptionValues& values, bool) {
    return output_transform_refuses_weights(values);
  };
  entry.threads = false;
  // Normal equations and Newton sums over the rows; y_transform refuses several ranks
  // (docs/distributed.md).
  entry.distributed = true;
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

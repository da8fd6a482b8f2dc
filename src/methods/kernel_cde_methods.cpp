// The options and registry entries of the kernel estimators of p(y|x) that only choose widths:
// ε-KDE, NW-CDE and RKDE.

#include "conditional/kernel_gates.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<EpsilonKdeOptions>& epsilon_kde_option_table() {
  using namespace registry_internal;
  static const OptionTable<EpsilonKdeOptions> table = [] {
    OptionTable<EpsilonKdeOptions> rows;
    rows.add(epsilon_grid(), &EpsilonKdeOptions::epsilons);
    rows.add(sigma_grid(), &EpsilonKdeOptions::sigmas);
    rows.add(folds_option(), &EpsilonKdeOptions::folds);
    rows.add(seed_option(), &EpsilonKdeOptions::seed);
    return rows;
  }();
  return table;
}

const OptionTable<NadarayaWatsonCdeOptions>& nadaraya_watson_cde_option_table() {
  using namespace registry_internal;
  static const OptionTable<NadarayaWatsonCdeOptions> table = [] {
    OptionTable<NadarayaWatsonCdeOptions> rows;
    rows.add(sigma_grid(), &NadarayaWatsonCdeOptions::sigmas);
    rows.add(n_centers_option(), &NadarayaWatsonCdeOptions::n_centers);
    rows.add(seed_option(), &NadarayaWatsonCdeOptions::seed);
    return rows;
  }();
  return table;
}

const OptionTable<RkdeOptions>& rkde_option_table() {
  using namespace registry_internal;
  static const OptionTable<RkdeOptions> table = [] {
    OptionTable<RkdeOptions> rows;
    rows.add(sigma_grid(), &RkdeOptions::sigmas);
    rows.add(folds_option(), &RkdeOptions::folds);
    rows.add(seed_option(), &RkdeOptions::seed);
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry epsilon_kde_method() {
  MethodEntry entry = conditional_method("ekde", "ε-neighbour kernel density estimation",
                                         "EpsilonKDE", epsilon_kde_option_table(), &fit_epsilon_kde,
                                         {gate_kind<EpsilonBallGate>("epsilon_ball")});
  entry.test_options = {{"epsilon", std::vector<double>{0.5, 1.0}},
                        {"sigma", std::vector<double>{0.3}},
                        {"folds", std::int64_t{2}}};
  return entry;
}

MethodEntry nadaraya_watson_cde_method() {
  MethodEntry entry =
      conditional_method("nwcde", "Nadaraya-Watson conditional density estimation", "NWCDE",
                         nadaraya_watson_cde_option_table(), &fit_nadaraya_watson_cde,
                         {gate_kind<GaussianKernelGate>("gaussian_kernel")});
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}}, {"n_centers", std::int64_t{30}}};
  return entry;
}

MethodEntry rkde_method() {
  MethodEntry entry = conditional_method("rkde", "ratio of kernel density estimates p(x, y)/p(x)",
                                         "RKDE", rkde_option_table(), &fit_rkde,
                                         {gate_kind<GaussianKernelGate>("gaussian_kernel")});
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}}, {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

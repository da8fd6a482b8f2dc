// NW-CDE's options and registry entry.

#include "conditional/kernel_gates.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<NadarayaWatsonCdeOptions>& nadaraya_watson_cde_option_table() {
  using namespace registry_internal;
  static const OptionTable<NadarayaWatsonCdeOptions> table = [] {
    OptionTable<NadarayaWatsonCdeOptions> rows;
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(NadarayaWatsonCdeOptions, sigma));
    rows.add(n_centers_option(), CDENS_OPTION_FIELD(NadarayaWatsonCdeOptions, n_centers));
    rows.add(seed_option(), CDENS_OPTION_FIELD(NadarayaWatsonCdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry nadaraya_watson_cde_method() {
  MethodEntry entry =
      conditional_method("nwcde", "Nadaraya-Watson conditional density estimation", "NWCDE",
                         nadaraya_watson_cde_option_table(), &fit_nadaraya_watson_cde,
                         {gate_kind<GaussianKernelGate>("gaussian_kernel")});
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}}, {"n_centers", std::int64_t{30}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

// NW-CDE's options and registry entry.

#include "conditional/kernel_gates.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<NwcdeOptions>& nwcde_option_table() {
  using namespace registry_internal;
  static const OptionTable<NwcdeOptions> table = [] {
    OptionTable<NwcdeOptions> rows;
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(NwcdeOptions, sigma));
    rows.add(n_centers_option(), CDENS_OPTION_FIELD(NwcdeOptions, n_centers));
    rows.add(seed_option(), CDENS_OPTION_FIELD(NwcdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry nwcde_method() {
  MethodEntry entry = conditional_method("nwcde", "Nadaraya-Watson conditional density estimation",
                                         "NWCDE", nwcde_option_table(), &fit_nwcde,
                                         {gate_kind<GaussianKernelGate>("gaussian_kernel")});
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}}, {"n_centers", std::int64_t{30}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

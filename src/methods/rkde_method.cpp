// RKDE's options and registry entry.

#include "conditional/kernel_gates.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<RkdeOptions>& rkde_option_table() {
  using namespace registry_internal;
  static const OptionTable<RkdeOptions> table = [] {
    OptionTable<RkdeOptions> rows;
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(RkdeOptions, sigma));
    rows.add(folds_option(), CDENS_OPTION_FIELD(RkdeOptions, folds));
    rows.add(seed_option(), CDENS_OPTION_FIELD(RkdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry rkde_method() {
  MethodEntry entry = conditional_method("rkde", "ratio of kernel density estimates p(x, y)/p(x)",
                                         "RKDE", rkde_option_table(), &fit_rkde,
                                         {gate_kind<GaussianKernelGate>("gaussian_kernel")});
  entry.test_options = {{"sigma", std::vector<double>{0.3, 1.0}}, {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

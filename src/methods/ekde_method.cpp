// ε-KDE's options and registry entry.

#include "conditional/kernel_gates.hpp"
#include "methods/common_options.hpp"
#include "methods/method_entries.hpp"
#include "methods/option_tables.hpp"

namespace cdens {

const OptionTable<EkdeOptions>& ekde_option_table() {
  using namespace registry_internal;
  static const OptionTable<EkdeOptions> table = [] {
    OptionTable<EkdeOptions> rows;
    rows.add(epsilon_grid(), CDENS_OPTION_FIELD(EkdeOptions, epsilon));
    rows.add(sigma_grid(), CDENS_OPTION_FIELD(EkdeOptions, sigma));
    rows.add(folds_option(), CDENS_OPTION_FIELD(EkdeOptions, folds));
    rows.add(seed_option(), CDENS_OPTION_FIELD(EkdeOptions, seed));
    return rows;
  }();
  return table;
}

namespace registry_internal {

MethodEntry ekde_method() {
  MethodEntry entry = conditional_method("ekde", "ε-neighbour kernel density estimation",
                                         "EpsilonKDE", ekde_option_table(), &fit_ekde,
                                         {gate_kind<EpsilonBallGate>("epsilon_ball")});
  entry.test_options = {{"epsilon", std::vector<double>{0.5, 1.0}},
                        {"sigma", std::vector<double>{0.3}},
                        {"folds", std::int64_t{2}}};
  return entry;
}

}  // namespace registry_internal
}  // namespace cdens

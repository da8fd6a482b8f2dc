#pragma once
// The option table of every method, typed by its Options struct: build a method's options from
// values given by name (OptionTable::build) or list them with their defaults (describe). The
// registry (registry.hpp) holds the same descriptions for the front ends.

#include "cdens/conditional/auto.hpp"
#include "cdens/conditional/ekde.hpp"
#include "cdens/conditional/forward_selection.hpp"
#include "cdens/conditional/kcde.hpp"
#include "cdens/conditional/linear.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/lsce.hpp"
#include "cdens/conditional/nwcde.hpp"
#include "cdens/conditional/rkde.hpp"
#include "cdens/conditional/sacde.hpp"
#include "cdens/conditional/salscde.hpp"
#include "cdens/density/gmm.hpp"
#include "cdens/density/gskd.hpp"
#include "cdens/density/parzen.hpp"
#include "cdens/density/rsde.hpp"
#include "cdens/density/skd.hpp"
#include "cdens/methods/registry.hpp"
#include "cdens/regression/press.hpp"

namespace cdens {

const OptionTable<LscdeOptions>& lscde_option_table();
const OptionTable<EkdeOptions>& ekde_option_table();
const OptionTable<NwcdeOptions>& nwcde_option_table();
const OptionTable<RkdeOptions>& rkde_option_table();
const OptionTable<KcdeOptions>& kcde_option_table();
const OptionTable<LinearOptions>& linear_option_table();
/// auto (the choice among methods by cross-validated NLL).
const OptionTable<AutoOptions>& auto_option_table();
const OptionTable<SacdeOptions>& sacde_option_table();
const OptionTable<SalscdeOptions>& salscde_option_table();
const OptionTable<ForwardSelectionLscdeOptions>& fw_lscde_option_table();
const OptionTable<ForwardSelectionEkdeOptions>& fw_ekde_option_table();
const OptionTable<ForwardSelectionNwcdeOptions>& fw_nwcde_option_table();
/// The table of a reduced method: the rows all four share, with lsce's final_model for lsce
/// and the radii of ε-KDE for lsce-ekde and lsmi-ekde.
const OptionTable<LsceOptions>& lsce_option_table(ReducedCdeMethod method);
const OptionTable<PressRegressionOptions>& press_option_table();
const OptionTable<ParzenOptions>& parzen_option_table();
const OptionTable<GmmOptions>& gmm_option_table();
const OptionTable<RsdeOptions>& rsde_option_table();
const OptionTable<SkdOptions>& skd_option_table();
const OptionTable<GskdOptions>& gskd_option_table();

}  // namespace cdens

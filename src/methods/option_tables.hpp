#pragma once
// The option table of every method, typed by its Options struct: build a method's options from
// values given by name (OptionTable::build) or list them with their defaults (describe). The
// registry (registry.hpp) holds the same descriptions for the front ends.

#include "cdens/conditional/epsilon_kde.hpp"
#include "cdens/conditional/forward_selection_methods.hpp"
#include "cdens/conditional/linear_gaussian.hpp"
#include "cdens/conditional/lscde.hpp"
#include "cdens/conditional/lsce.hpp"
#include "cdens/conditional/nadaraya_watson_cde.hpp"
#include "cdens/conditional/product_kernel_cde.hpp"
#include "cdens/conditional/rkde.hpp"
#include "cdens/conditional/sa_lscde.hpp"
#include "cdens/conditional/sacde.hpp"
#include "cdens/density/gmm.hpp"
#include "cdens/density/gskd.hpp"
#include "cdens/density/parzen.hpp"
#include "cdens/density/rsde.hpp"
#include "cdens/density/skd.hpp"
#include "cdens/methods/method_selection.hpp"
#include "cdens/methods/option_table.hpp"
#include "cdens/regression/press.hpp"

namespace cdens {

const OptionTable<LscdeOptions>& lscde_option_table();
const OptionTable<EpsilonKdeOptions>& epsilon_kde_option_table();
const OptionTable<NadarayaWatsonCdeOptions>& nadaraya_watson_cde_option_table();
const OptionTable<RkdeOptions>& rkde_option_table();
const OptionTable<ProductKernelCdeOptions>& product_kernel_cde_option_table();
const OptionTable<LinearGaussianOptions>& linear_gaussian_option_table();
/// auto (the choice among methods by cross-validated NLL).
const OptionTable<MethodSelectionOptions>& method_selection_option_table();
const OptionTable<SaCdeOptions>& sacde_option_table();
const OptionTable<SaLscdeOptions>& sa_lscde_option_table();
const OptionTable<ForwardSelectionLscdeOptions>& fw_lscde_option_table();
const OptionTable<ForwardSelectionEpsilonKdeOptions>& fw_epsilon_kde_option_table();
const OptionTable<ForwardSelectionNadarayaWatsonCdeOptions>& fw_nadaraya_watson_cde_option_table();
/// The table of a reduced method: the rows all four share, with lsce's final_model for lsce
/// and the radii of ε-KDE for lsce-ekde and lsmi-ekde.
const OptionTable<ReducedCdeOptions>& reduced_cde_option_table(ReducedCdeMethod method);
const OptionTable<PressRegressionOptions>& press_option_table();
const OptionTable<ParzenOptions>& parzen_option_table();
const OptionTable<GmmOptions>& gmm_option_table();
const OptionTable<RsdeOptions>& rsde_option_table();
const OptionTable<SkdOptions>& skd_option_table();
const OptionTable<GskdOptions>& gskd_option_table();

}  // namespace cdens

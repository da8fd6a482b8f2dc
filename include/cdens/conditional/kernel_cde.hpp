#pragma once
// What the kernel conditional density estimators ε-KDE, NW-CDE, RKDE and KCDE return, and the
// width grid they share (docs/methods/ekde.md, nwcde.md, rkde.md, kcde.md).

#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/fit_report.hpp"

namespace cdens {

/// The width grid of the SA-CDE paper's experiments (§3): twenty values from 10⁻² to 2, evenly
/// spaced in log, in standardised units. The default σ grid of ε-KDE and NW-CDE.
std::vector<double> sa_cde_width_grid();

}  // namespace cdens

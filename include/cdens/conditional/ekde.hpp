#pragma once
// ε-neighbour kernel density estimation (ε-KDE), the baseline of the LSCDE paper (Sugiyama et al.
// 2010, §3.1) and of the SA-CDE paper (Shiga, Tangkaratt, Sugiyama 2015, eq. 23):
//
//   p̂(y|x) = (1 / |I_{x,ε}|) Σ_{i ∈ I_{x,ε}} N(y; y_i, σ² I),   I_{x,ε} = {i : ‖x_i − x‖ ≤ ε},
//
// on standardised data, with ε and σ chosen by K-fold cross-validation of the held-out negative
// log-likelihood. An empty ball gives the kernel density estimate of y over all training outputs.
// See docs/methods/ekde.md.

#include <cstdint>
#include <vector>

#include "cdens/conditional/sacde.hpp"
#include "cdens/core/fit_context.hpp"

namespace cdens {

/// The SA-CDE paper's ε candidates (§3.1) as radii: its balls ‖x_i − x‖² ≤ ε' for twenty ε'
/// from 10⁻² to 5 evenly spaced in log are the balls ‖x_i − x‖ ≤ ε of radius ε = √ε', i.e.
/// twenty radii from 0.1 to √5 ≈ 2.236, evenly spaced in log.
std::vector<double> ekde_paper_radii();

/// Options of fit_ekde; the defaults are the SA-CDE paper's experimental set-up (§3, §3.1).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct EkdeOptions {
  std::vector<double> epsilon = ekde_paper_radii();
  std::vector<double> sigma = sa_cde_width_grid();
  int folds = 5;
  std::uint64_t seed = 0;
};

/// Fits ε-KDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n. The model keeps all n training
/// pairs: gate EpsilonBallGate(u = standardised x, ε), components N(v_i, σ² I). The report holds
/// "epsilon" and "sigma" and, when there was more than one candidate, the cross-validation table
/// over (ε, σ) with the held-out NLL in the user's units.
ConditionalFit fit_ekde(const MatrixView& x, const MatrixView& y, const EkdeOptions& options = {},
                        const FitContext& context = {});

}  // namespace cdens

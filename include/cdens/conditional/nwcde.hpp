#pragma once
// Nadaraya–Watson conditional density estimation (NW-CDE), a baseline of the SA-CDE paper
// (Shiga, Tangkaratt, Sugiyama 2015, eq. 25): LSCDE with every basis weight fixed to 1/B,
//
//   p̂(y|x) = p̂(y, x) / p̂(x) = Σ_b N(y; v_b, σ² I) exp(−‖x − u_b‖²/2σ²) / Σ_b exp(−‖x − u_b‖²/2σ²),
//
// over B = min(100, n) centres (u_b, v_b) drawn from the standardised training pairs, with one
// width σ for x and y chosen by leave-one-out cross-validation of the likelihood over the B
// centres. See docs/methods/nwcde.md.

#include <cstdint>
#include <vector>

#include "cdens/conditional/sacde.hpp"
#include "cdens/core/fit_context.hpp"

namespace cdens {

/// Options of fit_nwcde; the defaults are the SA-CDE paper's (§3, §3.1).
/// Each option is documented in its row of the method's option table (src/methods/, printed by
/// `cdens methods NAME`), not here.
struct NwcdeOptions {
  std::vector<double> sigma = sa_cde_width_grid();
  Index n_centers = 100;
  std::uint64_t seed = 0;
};

/// Fits NW-CDE to the pairs (x_i, y_i): x is d_x × n, y is d_y × n. The model is the mixture of
/// eq. (25) with gate GaussianKernelGate(u, σ) and components N(v_b, σ² I). The report holds
/// "sigma" and, for more than one candidate, the leave-one-out table (loss "kl": the mean of
/// −log p̂_{−b}(y_b | x_b) over the B centres, in the user's units, each centre predicted from
/// the other B − 1).
ConditionalFit fit_nwcde(const MatrixView& x, const MatrixView& y, const NwcdeOptions& options = {},
                         const FitContext& context = {});

}  // namespace cdens

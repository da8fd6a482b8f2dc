#pragma once
// Parzen window (PW) density estimate (Chen, Hong & Harris 2010, eq. 10):
//
//   p̂(z) = (1/N) Σ_k N(z; z_k, γ² I)
//
// on standardised data, with the width γ chosen by leave-one-out cross-validation of either the
// likelihood or the integrated squared error. See docs/methods/parzen.md.

#include <string>
#include <vector>

#include "cdens/core/fit_context.hpp"
#include "cdens/core/fit_report.hpp"
#include "cdens/core/gaussian_mixture.hpp"

namespace cdens {

/// The leave-one-out criterion that selects the Parzen width (both are minimised).
enum class ParzenCriterion {
  /// −(1/N) Σ_i log p̂_{−i}(z_i): the negative of the divergence criterion of eq. (11) scored on
  /// the point left out (likelihood cross-validation).
  leave_one_out_likelihood,
  /// ∫ p̂² − (2/N) Σ_i p̂_{−i}(z_i): the ISE of eq. (16) up to a constant, with the cross term
  /// estimated by leave-one-out as in eq. (17) (least-squares cross-validation).
  least_squares,
};

/// "loo_likelihood" or "least_squares" (the CvTable's loss name).
std::string to_string(ParzenCriterion criterion);
/// The criterion of a to_string name; InvalidArgument naming both otherwise.
ParzenCriterion parse_parzen_criterion(const std::string& name);

/// Options of fit_parzen. Widths are in standardised units (every dimension has unit sample
/// standard deviation).
struct ParzenOptions {
  /// The criterion; likelihood by default, because the paper derives the PW estimate as the
  /// maximiser of the likelihood (divergence) criterion of eq. (11).
  ParzenCriterion criterion = ParzenCriterion::leave_one_out_likelihood;
  /// Candidate widths γ. Non-empty: exactly these are scored and the best is taken (a grid
  /// search, no refinement). Empty (the default): the 1-D search below.
  std::vector<double> bandwidth = {};
  /// The 1-D search: `search_points` widths evenly spaced in log over [search_lower,
  /// search_upper], then golden-section refinement of log γ between the neighbours of the best
  /// of them until the bracket is narrower than `refine_tolerance` (relative to γ).
  double search_lower = 0.01;
  double search_upper = 3.0;
  int search_points = 25;
  double refine_tolerance = 1e-3;
  /// One width per dimension, chosen by maximising the leave-one-out likelihood over all of them
  /// at once (L-BFGS in log-widths, BandwidthLikelihood; docs/methods/parzen.md). Needs the
  /// likelihood criterion and no width grid. Off: the paper's single width γ.
  bool per_dimension = false;
  /// Work on standardised data (off: widths in the data's units, as the paper's experiments).
  bool standardize = true;
};

/// The criterion (to be minimised) for each width of `widths` on the data z (d × N, used as
/// given — no standardisation), with each sample's term in the columns of `per_sample`
/// (|widths| × N) when it is not null: the criterion is the row mean of those terms. Exact
/// leave-one-out (the self term left out of p̂_{−i}), computed in blocks of samples so that the
/// result does not depend on `threads`. Throws InvalidArgument for N < 2 or non-positive widths.
/// With sample weights c (one positive number per sample; empty: all 1) the criterion is
/// Σ_i c_i term_i / Σc, where p̂_{−i} leaves sample i out with all its weight and weighs the
/// others by c_j (docs/methods/parzen.md, "Sample weights").
Vector parzen_criterion(const MatrixView& z, const std::vector<double>& widths,
                        ParzenCriterion criterion, int threads = 0, Matrix* per_sample = nullptr,
                        const Vector& weights = Vector());

/// Fits the Parzen window to the samples x (d × N, the user's units): standardises x, selects γ
/// by options.criterion, and returns β = 1/N, c_k = z_k, γ_k = γ in every dimension. With one
/// fixed width there is nothing to select: the criterion is not computed and the report has no
/// cross-validation table.
/// DataError for empty, non-finite or constant data; InvalidArgument for bad options.
/// The report: hyper-parameter "bandwidth"; the CV table lists every width scored, grid first,
/// then the refinement's evaluations. With per_dimension, the hyper-parameters are
/// "bandwidth_0", "bandwidth_1", … and the report holds the leave-one-out NLL at them ("loo_nll",
/// the user's units) instead of a CV table. With context.sample_weights c: β_k = c_k / Σc, the
/// standardisation and the criterion weighted (parzen_criterion; with per_dimension,
/// BandwidthLikelihood's weighted criterion).
DensityFit fit_parzen(const MatrixView& x, const ParzenOptions& options = {},
                      const FitContext& context = {});

/// The width γ_Parz of the Parzen target of SKD and GSKD (Chen, Hong & Harris 2010, eq. 23):
/// `requested` when positive, else the width fit_parzen chooses with its default criterion
/// (weighted by the sample `weights`, one per column of x; empty: none), reporting its stages to
/// `progress`.
double parzen_target_width(const MatrixView& x, double requested, bool standardize, int threads,
                           Progress& progress = silent_progress(), const Vector& weights = {});

}  // namespace cdens

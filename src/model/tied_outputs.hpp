#pragma once
// Outputs with atoms — integer scores, many repeated values — make cross-validation of a
// Gaussian width pick a small candidate, often the smallest: a spike on a value that repeats in the
// held-out fold earns an unbounded score, under the squared loss (LSCDE's sq, LSCE) as under the
// held-out likelihood. The fitted model is then a set of spikes at the observed values. This
// detects that outcome and says what a user can do instead, and finds the recording step of an
// output rounded to a grid (integers, prices in cents, a meter read to 0.1), which bounds the
// width an estimator may choose (docs/methods/kcde.md, "Outputs recorded on a grid").

#include <optional>
#include <string>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// What the ties of one output dimension are.
struct OutputTies {
  Index distinct = 0;       ///< distinct values among the n samples
  double resolution = 0.0;  ///< the smallest gap between two distinct values (0 if only one)
};

/// Distinct values and resolution of every row of `y` (d_y × n).
std::vector<OutputTies> output_ties(const MatrixView& y);

/// Whether a dimension is tied: fewer distinct values than half the samples.
bool is_tied(const OutputTies& ties, Index n);

/// The largest Δ of which every difference between two values is a whole multiple (within
/// 10⁻⁶ Δ, the rounding of decimal steps in binary), or 0 where there is no such grid coarser
/// than a millionth of the values' range: continuous measurements, fewer than two distinct
/// values, or a non-finite value.
double recording_step(const VectorView& values);

/// The recording step of the values of every rank (`values`: this rank's share), on every rank:
/// the largest Δ of which each rank's gaps between its consecutive values, and the distance of
/// its smallest value from the smallest of all, are whole multiples, within 10⁻⁶ of the smallest
/// gap — Δ of all the values for a grid; on one process recording_step(values). A collective
/// call.
double recording_step(const VectorView& values, const Communicator& communicator);

/// The rule that finds the atom of a one-dimensional continuous output (a zero-inflated y: hours,
/// amounts, rainfall, claims; docs/methods/kcde.md, "Outputs with an atom"). The value v carried
/// by the most rows is an atom when
///   - it carries at least kAtomShare of the rows (5 %): enough that ties on it would decide a
///     leave-one-out likelihood (a spike on them scores without bound);
///   - it carries at least kAtomDominance (5) times the rows of any other value: a y rounded to a
///     grid has neighbours of its most frequent value about as frequent, an atom stands alone;
///   - the other values number more than kAtomOtherLevels (20): a y of few levels is discrete
///     (auto declares an integer y of at most 20 levels ordered), not a mass beside a density.
/// The value may lie anywhere in y's range (at its lower end for zero-inflation and censoring,
/// at its upper for top-coding, inside for a change that is often exactly 0).
struct AtomSearch {
  double value = 0.0;       ///< the value carried by the most rows (the smallest of a tie)
  double count = 0.0;       ///< its rows (their total weight, where the rows are weighted)
  double n = 0.0;           ///< all rows (their total weight)
  double next_count = 0.0;  ///< the rows of the next most frequent value (their weight)
  Index other_values = 0;   ///< the distinct values besides it
  bool weighted = false;    ///< whether the counts are weights
  bool found = false;       ///< whether the rule makes it an atom
  /// What the rule found, for a report: "0 carries 67.8 % of the 6,366 rows, 36.6 times the next
  /// most frequent value, beside 76 other values" ("of the rows by weight" where weighted).
  std::string description() const;
};
inline constexpr double kAtomShare = 0.05;
inline constexpr double kAtomDominance = 5.0;
inline constexpr Index kAtomOtherLevels = 20;

/// The rule above on `values` (non-finite values are none of the atom's), each row counted by its
/// sample weight where `weights` (one per value) are given: the rows of a table and of its
/// identical rows merged into weighted ones find the same atom.
AtomSearch find_output_atom(const VectorView& values, const Vector& weights = Vector());

/// The atom that an option `atom` ("auto", "none" or a number's text, KCDE's and auto's) makes of
/// one continuous output's `values` (every rank's): none for "none" or where "auto" finds none
/// (find_output_atom, with the rows' `weights` where given), the value found or given otherwise,
/// with how it was chosen for a report. InvalidArgument for a value given that fewer than 2 of the
/// values equal or fewer than 2 do not.
struct AtomDecision {
  std::optional<double> value;
  std::string description;  ///< "atom found (atom = auto): …" or "atom given: …"
};
AtomDecision decide_output_atom(const std::string& atom, const VectorView& values,
                                const Vector& weights = Vector());

/// The narrowest kernel (a standard deviation) that the estimators allow on a grid of step Δ:
/// Δ / 2. A comb of Gaussians of that spread at every grid point is flat within 1.5 %
/// (2 e^{−π²/2}, by Poisson summation), so the density carries no spike at the recorded values.
inline double narrowest_width_on_grid(double step) { return 0.5 * step; }

/// The warning for a fit whose width σ (standardised units), chosen by cross-validation among
/// `sigmas`, is below a quarter of the gap between neighbouring values of tied standardised
/// outputs `y_standard` (so each atom gets a spike of its own): names the cause, the tied
/// dimensions (by `y_names` when given) with their distinct values, and the remedies — declare the
/// output discrete (KCDE with --discrete/--ordered gives a probability mass function) or keep σ at
/// the data's resolution (the smallest standardised gap). Nothing when either condition fails.
std::optional<std::string> spike_warning(const MatrixView& y_standard, double sigma,
                                         const std::vector<double>& sigmas,
                                         const std::vector<std::string>& y_names = {});

}  // namespace cdens

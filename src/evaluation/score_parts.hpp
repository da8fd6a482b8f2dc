#pragma once
// The per-pair scores of a one-dimensional y computed from the distribution's answers
// (ConditionalMixture::scalar_answers): the functions of scores.hpp ask for those answers one
// query at a time, the evaluation for all of them at once, and both turn them into scores here.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens::detail {

/// The pinball loss of every pair at every level: row r from the levels[r]-quantiles (row r of
/// `quantiles`, one column per pair) and y (1 × m).
Matrix pinball_losses_of(const Matrix& quantiles, const MatrixView& y,
                         const std::vector<double>& levels);

/// The quantile probabilities of the central intervals of `levels`: (1 − α)/2 and (1 + α)/2 for
/// each level α in turn.
std::vector<double> central_interval_tails(const std::vector<double>& levels);

/// The width of every central interval from the quantiles at central_interval_tails(levels)
/// (rows from `first` on): one row per level.
Matrix central_widths_of(const Matrix& quantiles, Index first, Index levels);

/// The total length of every region: one row per coverage ([r][j]), one column per pair.
Matrix region_widths_of(const std::vector<std::vector<HighestDensityRegion>>& regions, Index pairs);

}  // namespace cdens::detail

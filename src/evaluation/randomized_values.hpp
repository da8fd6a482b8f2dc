#pragma once
// The PIT and HPD values of the pairs at the atom of a model's y (ConditionalMixture::atom)
// randomised over its jump, so that they stay uniform for a calibrated model (scores.hpp): the
// one place both the calibration functions and the evaluation's highest-density stage take them
// from, pair j drawing from its own stream whichever computes it.

#include <cstdint>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

/// `values` (one per pair) with the pairs at the atom of `model`'s y randomised over its jump: a
/// pair with y_j = a gets below_j + V_j π_a(x_j), below_j = values(j) − π_a(x_j) (`values` hold
/// the unrandomised value at the atom, the top of its jump: F(a) for the PIT, π_a for the HPD
/// value), V_j ~ Uniform(0, 1) from the stream stream(j) of `seed`. The other pairs keep theirs,
/// and every pair of a model without an atom.
Vector randomized_at_atom(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y,
                          std::uint64_t seed, std::uint64_t (*stream)(Index), Vector values);

}  // namespace cdens::detail

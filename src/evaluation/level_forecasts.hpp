#pragma once
// The forecast of a one-dimensional discrete y (a KCDE whose output is declared discrete or
// ordered): at every input, the probability mass function p̂(l | x_j) over the levels the model was
// fitted on. Every score of a discrete y is a finite sum over it (scores.hpp, the
// randomised PIT and HPD values of scores.hpp).

#include <string>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/types.hpp"
#include "model/level_distribution.hpp"

namespace cdens::detail {

/// Whether y is one discrete output.
bool has_discrete_scalar_output(const ConditionalMixture& model);

/// The kernel of a one-dimensional discrete y; InvalidArgument naming `query` otherwise (and,
/// when `ordered`, unless its levels are ordered).
const ColumnKernel& require_discrete_scalar_output(const ConditionalMixture& model,
                                                   const std::string& query, bool ordered);

/// p̂(· | x_j) over the model's levels for every column of x (the mixture's probability masses at
/// the levels, ConditionalMixture::pdf_grid).
std::vector<LevelDistribution> level_forecasts(const ConditionalMixture& model,
                                               const MatrixView& x);

}  // namespace cdens::detail

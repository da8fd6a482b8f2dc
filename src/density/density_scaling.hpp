#pragma once
// The map an unconditional estimator works in (standardised or not), shared by every density fit:
// on one process for the fits that keep every sample (Parzen, RSDE, SKD, GSKD), over the ranks
// of a Communicator for those whose model reduces to sums over the samples (GMM).

#include "cdens/core/fit_context.hpp"
#include "cdens/core/standardizer.hpp"

namespace cdens {

/// The per-dimension standardisation of x when `standardize` is on (the default of every
/// estimator), the identity otherwise (the paper's experiments work in the data's units). Either
/// way x must be non-empty and finite, and a constant dimension is a DataError naming its column
/// (context.column_names). The density fits that keep every sample run on one process:
/// InvalidArgument under a communicator of several.
Standardizer density_scaling(const MatrixView& x, bool standardize, const FitContext& context);

/// density_scaling for samples spread over the ranks of context.communicator, each rank passing
/// its own: the standardisation of every rank's samples (global moments), the same on every rank
/// and, on one process, the same to the bit as density_scaling's. InvalidArgument on every rank
/// unless all pass the same dimension; the errors about the data are thrown on every rank. Every
/// rank must call it.
Standardizer sharded_density_scaling(const MatrixView& x, bool standardize,
                                     const FitContext& context);

}  // namespace cdens

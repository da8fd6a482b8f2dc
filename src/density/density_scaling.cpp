#include "density/density_scaling.hpp"

#include "cdens/core/types.hpp"

namespace cdens {

Standardizer density_scaling(const MatrixView& x, bool standardize, const FitContext& context) {
  if (context.communicator.size() > 1) {
    throw InvalidArgument("the density estimators run on a single process");
  }
  return sharded_density_scaling(x, standardize, context);
}

Standardizer sharded_density_scaling(const MatrixView& x, bool standardize,
                                     const FitContext& context) {
  require_equal_on_every_rank(context.communicator, {static_cast<double>(x.rows())},
                              "the dimensions of x");
  // Refuses empty, non-finite and constant data on every rank, naming a constant column.
  // Sample weights come on one process only (fit_method refuses them on more).
  Standardizer fitted =
      context.weighted() ? Standardizer::fit(x, context.sample_weights, "x", context.column_names)
                         : Standardizer::fit(x, context.communicator, "x", context.column_names);
  return standardize ? fitted : Standardizer::identity(x.rows());
}

}  // namespace cdens

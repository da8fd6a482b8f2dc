#pragma once
// Inputs that carry no information: a conditional fit ignores an input that is constant on the
// rows it sees (docs/design.md, "Data"), so that a table with a constant column, or a
// cross-validation fold in which a rare indicator is constant, still fits. The method is fitted
// on the other inputs and its model wrapped as a model of all of them (model_on_all_features):
// the model file records the inputs it uses, the report names the ignored ones.

#include <string>
#include <vector>

#include "cdens/methods/registry.hpp"

namespace cdens {

/// The inputs (rows of x, d_x × n) whose values are all equal; none for fewer than two samples.
std::vector<Index> constant_inputs(const MatrixView& x);

/// The report's warning for an input `name` (quoted) constant at `value` (its text as in the data:
/// the shortest that reads back as the number, or a front end's label for its code).
std::string constant_input_warning(const std::string& name, const std::string& value);

/// `method` fitted to the pairs without the inputs `constant` (which must leave at least one):
/// the options that name columns by position (declared discrete columns, per-column values such
/// as KCDE's fixed bandwidths) follow the kept inputs, the report's per-input hyper-parameters
/// keep the positions of the full input, and a warning names each ignored input. An extra whose
/// last dimension is "d_x" (LSCE's W) gets a column of zeros for each ignored input.
MethodFit<ConditionalModel> fit_without_constant_inputs(const MethodEntry& method,
                                                        const MatrixView& x, const MatrixView& y,
                                                        const MatrixView& unlabeled_x,
                                                        const OptionValues& options,
                                                        const FitContext& context,
                                                        const std::vector<Index>& constant);

}  // namespace cdens

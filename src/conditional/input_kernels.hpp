#pragma once
// The kernel of a discrete input of a fitted gate: its kind and the levels the fit saw, which a
// model file's labels must name (level k is the code of label k).

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/conditional_gate.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The kernel of input d (0-based among the gate's inputs) where it is discrete (one of
/// gate.discrete_inputs()), looked up through the gates that wrap others (selected features, a
/// broad component, the members of a pool: the first member that keeps it); nullptr for a
/// continuous input.
const ColumnKernel* discrete_input_kernel(const ConditionalGate& gate, Index d);

}  // namespace cdens

#pragma once
// What a gate of kernel weights α over centres (LSCDE, SA-CDE) requires of its parts.

#include <string>

#include "cdens/core/types.hpp"
#include "core/validate.hpp"

namespace cdens {

/// A positive width σ, finite centres and finite non-negative coefficients α, not all zero:
/// all zero would weight no component anywhere, and the fits write such a model with a
/// constant gate, so here it can only come from a damaged file. `gate` names the method
/// ("LSCDE") in the messages; the shapes are the caller's to check.
inline void require_gate_coefficients(const MatrixView& centers, const MatrixView& alpha,
                                      double sigma, const std::string& gate) {
  require_positive(sigma, gate + " width sigma");
  if (!centers.allFinite()) throw InvalidArgument(gate + " centres must be finite");
  if (!alpha.allFinite() || (alpha.array() < 0.0).any()) {
    throw InvalidArgument(gate + " coefficients must be finite and non-negative");
  }
  if (!(alpha.array() > 0.0).any()) {
    throw InvalidArgument(gate + " coefficients are all zero: no component carries weight");
  }
}

}  // namespace cdens

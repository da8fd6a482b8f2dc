#pragma once
// What a gate of kernel weights α over centres (LSCDE, SA-CDE; the kernel gates' centres too)
// requires of its parts.

#include <string>

#include "cdens/core/types.hpp"
#include "core/validate.hpp"

namespace cdens {

/// The largest magnitude of a gate's centre: a fit's centres are standardised inputs (or a raw
/// discrete input's levels), far below it, and squared distances to centres beyond it overflow
/// (a model file's centre of −1.7·10³⁰⁸, found by fuzzing, made every log-density NaN).
constexpr double kLargestGateCentre = 1e150;

/// Finite centres of magnitude at most kLargestGateCentre; `gate` names the gate in the message.
inline void require_gate_centres(const MatrixView& centers, const std::string& gate) {
  if (!centers.allFinite() || centers.cwiseAbs().maxCoeff() > kLargestGateCentre) {
    throw InvalidArgument(gate + " centres must be finite and of magnitude at most 1e150");
  }
}

/// A positive width σ, finite centres and finite non-negative coefficients α, not all zero:
/// all zero would weight no component anywhere, and the fits write such a model with a
/// constant gate, so here it can only come from a damaged file. `gate` names the method
/// ("LSCDE") in the messages; the shapes are the caller's to check.
inline void require_gate_coefficients(const MatrixView& centers, const MatrixView& alpha,
                                      double sigma, const std::string& gate) {
  require_positive(sigma, gate + " width sigma");
  require_gate_centres(centers, gate);
  if (!alpha.allFinite() || (alpha.array() < 0.0).any()) {
    throw InvalidArgument(gate + " coefficients must be finite and non-negative");
  }
  if (!(alpha.array() > 0.0).any()) {
    throw InvalidArgument(gate + " coefficients are all zero: no component carries weight");
  }
}

}  // namespace cdens

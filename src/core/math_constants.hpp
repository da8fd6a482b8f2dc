#pragma once
// Constants of the formulas, written once.

namespace cdens {

/// π.
inline constexpr double kPi = 3.14159265358979323846;
/// log(2π): the log normalising constant of a Gaussian is −½ (d log(2π) + Σ log σ²).
inline constexpr double kLog2Pi = 1.83787706640934548356;

}  // namespace cdens

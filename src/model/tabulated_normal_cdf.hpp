#pragma once
// The standard normal CDF Φ from a table, for the one-dimensional queries of large mixtures
// (scalar_mixture.hpp), where erfc was the largest cost: a quantile's Newton steps, a region's
// probabilities and the CRPS's grid each take Φ of every nearby component, thousands per point.

#include <cstddef>
#include <vector>

namespace cdens::detail {

/// How far NormalCdfTable::cdf may lie from Φ, anywhere: the cubic Hermite interpolant of Φ and
/// φ at steps δ = 1/128 errs by at most δ⁴ max|Φ⁽⁴⁾| / 384 = (1/128)⁴ · 0.5506 / 384 =
/// 5.34·10⁻¹² (Φ⁽⁴⁾ = φ‴ = (3z − z³) φ(z)); beyond ±10 Φ is within 7.7·10⁻²⁴ of 0 or 1.
constexpr double kTabulatedNormalCdfError = 5.4e-12;

/// Φ and δ·φ at the points −10 + i·δ, δ = 1/128 (41 kB).
class NormalCdfTable {
 public:
  static constexpr double kStep = 1.0 / 128.0;
  static constexpr double kReach = 10.0;

  /// The one table, built on the first call.
  static const NormalCdfTable& instance();

  /// Φ(z) within kTabulatedNormalCdfError, by cubic Hermite interpolation of the table; 0 below
  /// −10, 1 above 10. About six times cheaper than erfc.
  double cdf(double z) const {
    if (!(z > -kReach)) return 0.0;
    if (z >= kReach) return 1.0;
    const double position = (z + kReach) / kStep;
    const auto cell = static_cast<std::size_t>(position);
    const double u = position - static_cast<double>(cell);
    const double u2 = u * u;
    const double u3 = u2 * u;
    // The Hermite basis on the cell: values at both ends, slopes in units of the cell at both.
    return (2.0 * u3 - 3.0 * u2 + 1.0) * values_[cell] + (u3 - 2.0 * u2 + u) * slopes_[cell] +
           (3.0 * u2 - 2.0 * u3) * values_[cell + 1] + (u3 - u2) * slopes_[cell + 1];
  }

 private:
  NormalCdfTable();
  std::vector<double> values_;  ///< Φ at the points, one past +10 for the last cell
  std::vector<double> slopes_;  ///< δ·φ at the points
};

}  // namespace cdens::detail

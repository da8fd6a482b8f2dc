#pragma once
// The normal distribution truncated to an interval: the shape of a component of a model with
// output bounds (support.hpp's OutputBounds; docs/design.md, "Output bounds"). A component far
// beyond a bound puts its whole truncated mass within a sliver beside it (a trend extrapolating
// past the bound: the ends thousands of standard deviations from the centre), and there a + w
// rounds to a. So a point of [a, b] is carried with its distances from both ends, each
// computed in its own right, and every function works from the tail nearer to the interval:
// masses, densities and CDFs from log Q, the log of the upper tail, without underflow (its
// asymptotic series beyond 37) and as differences in w there; quantiles by Newton steps on
// log Q in w; moments by quadrature where the closed forms would cancel.

#include <cmath>
#include <vector>

namespace cdens::detail {

/// A point τ of [a, b] in standard units with its distances from both ends; the distance from a
/// finite end near τ keeps its digits where τ itself cannot.
struct TruncatedPoint {
  double value;
  double above_lower;  ///< τ − a
  double below_upper;  ///< b − τ
};

/// log Q(x) = log P(Z > x) for Z ~ N(0, 1), finite for every finite x.
double log_upper_tail(double x);

/// The standard normal Z given a < Z ≤ b, with what its evaluations share — the mass, the
/// tail quantities at the nearer end — computed once, for the many evaluations of a query.
class TruncatedNormal {
 public:
  TruncatedNormal(double a, double b);

  double a() const { return a_; }
  double b() const { return b_; }
  /// log P(a < Z ≤ b); −∞ only where a ≥ b.
  double log_mass() const { return log_mass_; }
  /// The log-density at `point`, a point inside.
  double log_density(const TruncatedPoint& point) const;
  /// P(Z ≤ τ) at `point`: 0 at or below a, 1 at or above b.
  double cdf(const TruncatedPoint& point) const;
  /// The point with cdf = p, p ∈ [0, 1]; `q` is 1 − p (see truncated_normal_quantile).
  TruncatedPoint quantile(double p, double q) const;

 private:
  /// Where the interval lies: within 1 of 0, or beyond, right or left of it.
  enum class Side { bulk, right, left };
  /// a right of 0, −b left of it: the end of the tail the functions work from.
  double near() const;

  Side side_ = Side::bulk;
  double a_;
  double b_;
  double width_;
  double log_mass_ = 0.0;
  double erf_a_ = 0.0;          ///< erf(a/√2), in the bulk
  double erf_width_ = 0.0;      ///< erf(b/√2) − erf(a/√2), in the bulk
  double log_tail_near_ = 0.0;  ///< log Q at the nearer end, in a tail
  double mills_near_ = 0.0;     ///< λ = φ/Q there
  double log_far_ratio_ = 0.0;  ///< log Q(far end) − log Q(near end), mirrored
};

/// log P(a < Z ≤ b), a < b (either end infinite); −∞ only where a ≥ b.
double log_normal_mass(double a, double b);

/// The log-density at `point` of Z given a < Z ≤ b, for a point inside.
double truncated_normal_log_density(double a, double b, const TruncatedPoint& point);

/// P(Z ≤ τ | a < Z ≤ b) at `point`: 0 at or below a, 1 at or above b.
double truncated_normal_cdf(double a, double b, const TruncatedPoint& point);

/// The point with truncated_normal_cdf = p, p ∈ [0, 1]; `q` is 1 − p, given apart so that a
/// probability near 1 keeps its digits (p = 0 gives a, q = 0 gives b). Within 1e-13 relative of
/// the root, the distance from the nearer end included.
TruncatedPoint truncated_normal_quantile(double a, double b, double p, double q);

/// E[Z] and Var[Z] given a < Z ≤ b, the mean as an offset from the mode m (0 clamped into
/// [a, b]) so that a mean a sliver from a far end keeps its digits: E[Z] = m + mean_offset.
/// Closed forms where the interval holds a unit of the bulk (b − a ≥ 1, a < 4, b > −4),
/// otherwise the quadrature rule below, within 1e-13 relative where the closed forms would lose
/// every digit to cancellation (a sliver far in a tail, a narrow interval).
struct TruncatedMoments {
  double mode;
  double mean_offset;
  double variance;
};
TruncatedMoments truncated_normal_moments(double a, double b);

/// Nodes and normalised weights of E[g(Z) | a < Z ≤ b] ≈ Σ w_i g(m + offsets_i): 64-point
/// Gauss–Legendre on the part of [a, b] where the density is within e⁻⁴⁵ of its value at the
/// mode m (0 clamped into [a, b]), the nodes kept as offsets from m.
struct TruncatedNormalRule {
  double mode = 0.0;
  std::vector<double> offsets;
  std::vector<double> weights;
};
TruncatedNormalRule truncated_normal_rule(double a, double b);

/// A component N(center, spread²) of a variable t truncated to [lower, upper] (either end may be
/// infinite, both may): its ends in standard units, a = (lower − center) / spread and b, and the
/// maps between t and standard units that go through the nearer finite end, so that a point in
/// a sliver beside a bound far from the centre keeps its digits both ways.
class TruncatedComponent {
 public:
  TruncatedComponent(double center, double spread, double lower, double upper);

  double a() const { return standard_.a(); }
  double b() const { return standard_.b(); }
  double center() const { return center_; }
  double spread() const { return spread_; }
  /// Whether either end is finite.
  bool truncated() const;
  /// log of the mass of [a, b] under the untruncated component.
  double log_mass() const { return standard_.log_mass(); }
  /// t in standard units, with its distances from both ends taken in t.
  TruncatedPoint point(double t) const;
  /// The t of a point, from the nearer finite end.
  double at(const TruncatedPoint& point) const;
  /// The t of τ = mode + offset, mode a, b or 0 as truncated_normal_moments and
  /// truncated_normal_rule give it.
  double at_offset(double mode, double offset) const;
  /// The log-density in t of the truncated component at t (−∞ outside [lower, upper]).
  double log_pdf(double t) const;
  /// Its density.
  double pdf(double t) const { return std::exp(log_pdf(t)); }
  double cdf(double t) const;
  /// The p-quantile in standard units, with its distances from the ends (at() gives its t).
  TruncatedPoint quantile(double p) const;

 private:
  double center_;
  double spread_;
  double lower_;
  double upper_;
  TruncatedNormal standard_;
  double log_spread_;
};

}  // namespace cdens::detail

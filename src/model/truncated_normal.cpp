#include "model/truncated_normal.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "cdens/core/types.hpp"
#include "core/math_constants.hpp"

namespace cdens::detail {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kHalfLog2Pi = 0.5 * kLog2Pi;
constexpr int kRuleNodes = 64;
// The rule integrates where the density is within e⁻⁴⁵ (about 3·10⁻²⁰) of its largest value.
constexpr double kRuleExponent = 45.0;

double log_normal_density(double x) { return -0.5 * x * x - kHalfLog2Pi; }

/// log(1 − e^d) for d ≤ 0, without cancellation at either end (Mächler's log1mexp).
double log_one_minus_exp(double d) {
  return d > -0.6931471805599453 ? std::log(-std::expm1(d)) : std::log1p(-std::exp(d));
}

/// x ≥ 0 with log Q(x) = target, target ≤ log ½: Newton steps on log Q, concave and decreasing,
/// kept inside [0, √(−2 target)] (where log Q ≤ target − log 2 at the right end, since
/// Q(x) ≤ e^{−x²/2} / 2), bisecting where a step leaves it.
double inverse_log_upper_tail(double target) {
  if (target == -INFINITY) return INFINITY;
  double low = 0.0;
  double high = std::sqrt(-2.0 * target);
  // The asymptotic inversion of log Q(x) ≈ −x²/2 − log(x √(2π)) as a first guess.
  const double squared = -2.0 * target - std::log(-2.0 * target) - kLog2Pi;
  double x = std::clamp(squared > 0.0 ? std::sqrt(squared) : 0.5 * high, low, high);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double log_tail = log_upper_tail(x);
    const double value = log_tail - target;
    (value > 0.0 ? low : high) = x;
    // d/dx log Q(x) = −φ(x) / Q(x), the inverse Mills ratio with a minus sign.
    const double slope = -std::exp(log_normal_density(x) - log_tail);
    double next = x - value / slope;
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    const double step = std::abs(next - x);
    x = next;
    if (step <= 1e-15 * (1.0 + x) || high - low <= 1e-15 * (1.0 + high)) break;
  }
  return x;
}

struct LegendreRule {
  Vector nodes;
  Vector weights;
};

/// Gauss–Legendre of `count` nodes on [−1, 1] by Golub–Welsch: the eigenvalues of the Jacobi
/// matrix of the Legendre polynomials (off-diagonal k / √(4k² − 1)) and twice the squared first
/// components of its eigenvectors.
LegendreRule legendre_nodes(int count) {
  Matrix jacobi = Matrix::Zero(count, count);
  for (int k = 1; k < count; ++k) {
    const double kk = static_cast<double>(k);
    jacobi(k, k - 1) = jacobi(k - 1, k) = kk / std::sqrt(4.0 * kk * kk - 1.0);
  }
  const Eigen::SelfAdjointEigenSolver<Matrix> solver(jacobi);
  return LegendreRule{solver.eigenvalues(),
                      2.0 * solver.eigenvectors().row(0).array().square().transpose()};
}

/// The moments' rule (kRuleNodes nodes).
const LegendreRule& legendre_rule() {
  static const LegendreRule rule = legendre_nodes(kRuleNodes);
  return rule;
}

/// ∫_0^w e^{−a s − s²/2} ds for w (a + w/2) ≤ 1, where the integrand falls by at most e⁻¹: ten
/// Gauss–Legendre nodes integrate it to rounding.
double short_tail_integral(double a, double w) {
  static const LegendreRule rule = legendre_nodes(10);
  double sum = 0.0;
  for (Index i = 0; i < rule.nodes.size(); ++i) {
    const double s = 0.5 * w * (1.0 + rule.nodes(i));
    sum += rule.weights(i) * std::exp(-s * (a + 0.5 * s));
  }
  return 0.5 * w * sum;
}

/// How far from the mode m, upwards, the density falls by e^{−E}: the root of o² + 2 m o = 2E,
/// written so that neither sign of m cancels.
double reach_up(double mode) {
  const double root = std::sqrt(mode * mode + 2.0 * kRuleExponent);
  return mode >= 0.0 ? 2.0 * kRuleExponent / (mode + root) : root - mode;
}

/// Beyond this, log Q is its asymptotic series (erfc nears the smallest double).
constexpr double kAsymptoticTail = 37.0;

/// log S(x), S(x) = 1 − 1/x² + 3/x⁴ − … = Q(x) x / φ(x), for x ≥ kAsymptoticTail, where its
/// eighth term is below 2·10⁻¹⁷ (Abramowitz & Stegun 26.2.12).
double log_tail_series(double x) {
  const double u = 1.0 / (x * x);
  double term = 1.0;
  double series = 1.0;
  for (int k = 1; k <= 7; ++k) {
    term *= -(2.0 * k - 1.0) * u;
    series += term;
  }
  return std::log(series);
}

/// log λ(a) = log φ(a) − log Q(a), the log of the inverse Mills ratio, for a ≥ 0 (far out,
/// λ(a) = a / S(a)).
double log_mills(double a) {
  return a < kAsymptoticTail ? log_normal_density(a) - log_upper_tail(a)
                             : std::log(a) - log_tail_series(a);
}

/// log Q(a + w) − log Q(a) for a ≥ 0, w ≥ 0, in w itself: for a short step (w (a + w/2) ≤ 1) as
/// log(1 − λ(a) ∫_0^w e^{−a s − s²/2} ds), which keeps the digits of a w far below a's last one;
/// for a longer one the difference of log Q (above kAsymptoticTail its series in w:
/// −w (a + w/2) − log(1 + w/a) + log S(a + w) − log S(a)).
double log_tail_ratio(double a, double w) {
  if (w == INFINITY) return -INFINITY;
  const double exponent = w * (a + 0.5 * w);
  if (exponent <= 1.0) return std::log1p(-std::exp(log_mills(a)) * short_tail_integral(a, w));
  if (a < kAsymptoticTail) return log_upper_tail(a + w) - log_upper_tail(a);
  return -exponent - std::log1p(w / a) + log_tail_series(a + w) - log_tail_series(a);
}

/// w ≥ 0 with log_tail_ratio(a, w) = relative (≤ 0), a ≥ 0, solved in w itself: far in a tail
/// the quantile sits a sliver w ~ 1/a above a, below a's last digit. The ratio is concave and
/// decreasing in w, with derivative −λ(a + w): Newton steps from w = −relative / λ(a) approach
/// the root from above after the first.
double tail_offset(double a, double relative) {
  double w = -relative / std::exp(log_mills(a));
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double slope = -std::exp(log_mills(a + w));
    const double next = std::max(0.0, w - (log_tail_ratio(a, w) - relative) / slope);
    const double step = std::abs(next - w);
    w = next;
    if (step <= 1e-15 * w) break;
  }
  return w;
}

/// Whether [a, b] reaches within 1 of 0, where differences of erf keep their digits (erf is
/// accurate near 0, and at most one end lies in a tail); farther out, the tail nearer to the
/// interval does.
bool near_the_bulk(double a, double b) { return a < 1.0 && b > -1.0; }

double erf_difference(double a, double b) {
  return std::erf(b * kSqrtHalf) - std::erf(a * kSqrtHalf);
}

}  // namespace

double log_upper_tail(double x) {
  if (x < 0.0) return std::log1p(-0.5 * std::erfc(-x * kSqrtHalf));
  if (x <= kAsymptoticTail) return std::log(0.5 * std::erfc(x * kSqrtHalf));
  // Q(x) = φ(x)/x · S(x).
  return log_normal_density(x) - std::log(x) + log_tail_series(x);
}

double log_normal_mass(double a, double b) {
  if (!(a < b)) return -INFINITY;
  if (near_the_bulk(a, b)) return std::log(0.5 * erf_difference(a, b));
  if (a >= 0.0) return log_upper_tail(a) + log_one_minus_exp(log_tail_ratio(a, b - a));
  return log_normal_mass(-b, -a);
}

double truncated_normal_log_density(double a, double b, const TruncatedPoint& point) {
  if (near_the_bulk(a, b)) return log_normal_density(point.value) - log_normal_mass(a, b);
  // φ(a + w) / (Q(a) − Q(b)) = λ(a) e^{−w (a + w/2)} / (1 − Q(b)/Q(a)), from the nearer end.
  const bool right = a >= 0.0;
  const double near = right ? a : -b;
  const double w = right ? point.above_lower : point.below_upper;
  return log_mills(near) - w * (near + 0.5 * w) - log_one_minus_exp(log_tail_ratio(near, b - a));
}

double truncated_normal_cdf(double a, double b, const TruncatedPoint& point) {
  if (!(point.above_lower > 0.0)) return 0.0;
  if (!(point.below_upper > 0.0)) return 1.0;
  if (near_the_bulk(a, b)) {
    return std::clamp(
        (std::erf(point.value * kSqrtHalf) - std::erf(a * kSqrtHalf)) / erf_difference(a, b), 0.0,
        1.0);
  }
  if (a >= 0.0) {
    // (Q(a) − Q(τ)) / (Q(a) − Q(b)), both relative to Q(a).
    return std::expm1(log_tail_ratio(a, point.above_lower)) / std::expm1(log_tail_ratio(a, b - a));
  }
  // Mirrored, Z' = −Z on [−b, −a]: (Q(−τ) − Q(−a)) / (Q(−b) − Q(−a)), relative to Q(−b), so
  // that the small probabilities far from b keep their digits.
  const double far = log_tail_ratio(-b, b - a);
  return (std::exp(log_tail_ratio(-b, point.below_upper)) - std::exp(far)) / -std::expm1(far);
}

TruncatedPoint truncated_normal_quantile(double a, double b, double p, double q) {
  if (!(p > 0.0)) return {a, 0.0, b - a};
  if (!(q > 0.0)) return {b, b - a, 0.0};
  if (!near_the_bulk(a, b) && a >= 0.0) {
    // Q(τ) = Q(a) − p (Q(a) − Q(b)) = Q(a) (1 − p D), D = 1 − Q(b)/Q(a); for p near 1 from q:
    // 1 − p D = Q(b)/Q(a) + q D.
    const double log_ratio = log_tail_ratio(a, b - a);
    const double share = -std::expm1(log_ratio);  // D
    const double relative =
        p < 0.5 ? std::log1p(-p * share) : std::log(std::exp(log_ratio) + q * share);
    const double offset = std::min(tail_offset(a, relative), b - a);
    return {a + offset, offset, (b - a) - offset};
  }
  if (!near_the_bulk(a, b)) {
    const TruncatedPoint mirrored = truncated_normal_quantile(-b, -a, q, p);
    return {-mirrored.value, mirrored.below_upper, mirrored.above_lower};
  }
  // Both tails of the bulk: from whichever of P(Z ≤ τ) = Φ(a) + p M and P(Z > τ) = Q(b) + q M
  // is at most ½ (they sum to 1), M the mass of [a, b].
  const double mass = 0.5 * erf_difference(a, b);
  const double above = 0.5 * std::erfc(b * kSqrtHalf) + q * mass;
  const double below = 0.5 * std::erfc(-a * kSqrtHalf) + p * mass;
  const double x = std::clamp(above <= 0.5 ? inverse_log_upper_tail(std::log(above))
                                           : -inverse_log_upper_tail(std::log(below)),
                              a, b);
  return {x, x - a, b - x};
}

TruncatedNormalRule truncated_normal_rule(double a, double b) {
  TruncatedNormalRule rule;
  rule.mode = std::clamp(0.0, a, b);
  const double lower = std::max(a - rule.mode, -reach_up(-rule.mode));
  const double upper = std::min(b - rule.mode, reach_up(rule.mode));
  const LegendreRule& legendre = legendre_rule();
  const double middle = 0.5 * (lower + upper);
  const double half = 0.5 * (upper - lower);
  rule.offsets.resize(kRuleNodes);
  rule.weights.resize(kRuleNodes);
  double total = 0.0;
  for (int i = 0; i < kRuleNodes; ++i) {
    const double offset = middle + half * legendre.nodes(i);
    // The density relative to the mode's: exp(−(τ² − m²)/2) with τ = m + o.
    const double weight =
        legendre.weights(i) * std::exp(-0.5 * offset * (offset + 2.0 * rule.mode));
    rule.offsets[static_cast<std::size_t>(i)] = offset;
    rule.weights[static_cast<std::size_t>(i)] = weight;
    total += weight;
  }
  for (double& weight : rule.weights) weight /= total;
  return rule;
}

TruncatedMoments truncated_normal_moments(double a, double b) {
  const double mode = std::clamp(0.0, a, b);
  if (b - a >= 1.0 && a < 4.0 && b > -4.0) {
    // E = (φ(a) − φ(b)) / M, Var = 1 + (a φ(a) − b φ(b)) / M − E² (M the mass): with a unit of
    // the bulk inside, E² stays within a few units of the variance.
    const double log_mass = log_normal_mass(a, b);
    const double at_a = std::isfinite(a) ? std::exp(log_normal_density(a) - log_mass) : 0.0;
    const double at_b = std::isfinite(b) ? std::exp(log_normal_density(b) - log_mass) : 0.0;
    const double mean = at_a - at_b;
    return {mode, mean - mode,
            1.0 + (std::isfinite(a) ? a * at_a : 0.0) - (std::isfinite(b) ? b * at_b : 0.0) -
                mean * mean};
  }
  const TruncatedNormalRule rule = truncated_normal_rule(a, b);
  double offset_mean = 0.0;
  for (std::size_t i = 0; i < rule.offsets.size(); ++i) {
    offset_mean += rule.weights[i] * rule.offsets[i];
  }
  double variance = 0.0;
  for (std::size_t i = 0; i < rule.offsets.size(); ++i) {
    const double deviation = rule.offsets[i] - offset_mean;
    variance += rule.weights[i] * deviation * deviation;
  }
  return {rule.mode, offset_mean, variance};
}

TruncatedComponent::TruncatedComponent(double center, double spread, double lower, double upper)
    : center_(center),
      spread_(spread),
      lower_(lower),
      upper_(upper),
      a_((lower - center) / spread),
      b_((upper - center) / spread),
      log_mass_(log_normal_mass(a_, b_)) {}

bool TruncatedComponent::truncated() const { return std::isfinite(a_) || std::isfinite(b_); }

TruncatedPoint TruncatedComponent::point(double t) const {
  return {(t - center_) / spread_, (t - lower_) / spread_, (upper_ - t) / spread_};
}

double TruncatedComponent::at(const TruncatedPoint& point) const {
  const bool lower_nearer = point.above_lower <= point.below_upper;
  if (std::isfinite(lower_) && (lower_nearer || !std::isfinite(upper_))) {
    return lower_ + spread_ * point.above_lower;
  }
  if (std::isfinite(upper_)) return upper_ - spread_ * point.below_upper;
  return center_ + spread_ * point.value;
}

double TruncatedComponent::at_offset(double mode, double offset) const {
  if (mode == a_ && std::isfinite(lower_)) return lower_ + spread_ * offset;
  if (mode == b_ && std::isfinite(upper_)) return upper_ + spread_ * offset;
  return center_ + spread_ * (mode + offset);
}

double TruncatedComponent::log_pdf(double t) const {
  if (!(t >= lower_ && t <= upper_)) return -INFINITY;
  return truncated_normal_log_density(a_, b_, point(t)) - std::log(spread_);
}

double TruncatedComponent::cdf(double t) const { return truncated_normal_cdf(a_, b_, point(t)); }

}  // namespace cdens::detail

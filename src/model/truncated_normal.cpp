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

/// What the functions of one tail share at its end a ≥ 0: log Q(a) and λ(a) = φ(a) / Q(a).
struct TailEnd {
  double a;
  double log_tail;
  double mills;
};

TailEnd tail_end(double a) { return {a, log_upper_tail(a), std::exp(log_mills(a))}; }

/// log Q(a + w) − log Q(a) for w ≥ 0, in w itself: for a short step (w (a + w/2) ≤ 1) as
/// log(1 − λ(a) ∫_0^w e^{−a s − s²/2} ds), which keeps the digits of a w far below a's last one;
/// for a longer one the difference of log Q (above kAsymptoticTail its series in w:
/// −w (a + w/2) − log(1 + w/a) + log S(a + w) − log S(a)).
double log_tail_ratio(const TailEnd& end, double w) {
  const double a = end.a;
  if (w == INFINITY) return -INFINITY;
  const double exponent = w * (a + 0.5 * w);
  if (exponent <= 1.0) return std::log1p(-end.mills * short_tail_integral(a, w));
  if (a < kAsymptoticTail) return log_upper_tail(a + w) - end.log_tail;
  return -exponent - std::log1p(w / a) + log_tail_series(a + w) - log_tail_series(a);
}

/// w ≥ 0 with log_tail_ratio(end, w) = relative (≤ 0), solved in w itself: far in a tail the
/// quantile sits a sliver w ~ 1/a above a, below a's last digit. The ratio is concave and
/// decreasing in w, with derivative −λ(a + w): Newton steps from w = −relative / λ(a) approach
/// the root from above after the first.
double tail_offset(const TailEnd& end, double relative) {
  double w = -relative / end.mills;
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double slope = -std::exp(log_mills(end.a + w));
    const double next = std::max(0.0, w - (log_tail_ratio(end, w) - relative) / slope);
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

}  // namespace

double log_upper_tail(double x) {
  if (x < 0.0) return std::log1p(-0.5 * std::erfc(-x * kSqrtHalf));
  if (x <= kAsymptoticTail) return std::log(0.5 * std::erfc(x * kSqrtHalf));
  // Q(x) = φ(x)/x · S(x).
  return log_normal_density(x) - std::log(x) + log_tail_series(x);
}

TruncatedNormal::TruncatedNormal(double a, double b) : a_(a), b_(b), width_(b - a) {
  if (!(a < b)) {
    log_mass_ = -INFINITY;
    return;
  }
  if (near_the_bulk(a, b)) {
    erf_a_ = std::erf(a * kSqrtHalf);
    erf_width_ = std::erf(b * kSqrtHalf) - erf_a_;
    log_mass_ = std::log(0.5 * erf_width_);
    return;
  }
  // The tail nearer to the interval: [a, b] itself right of 0, its mirror [−b, −a] left of it.
  side_ = a >= 0.0 ? Side::right : Side::left;
  const TailEnd end = tail_end(side_ == Side::right ? a : -b);
  log_tail_near_ = end.log_tail;
  mills_near_ = end.mills;
  log_far_ratio_ = log_tail_ratio(end, width_);
  log_mass_ = end.log_tail + log_one_minus_exp(log_far_ratio_);
}

double TruncatedNormal::near() const { return side_ == Side::right ? a_ : -b_; }

double TruncatedNormal::log_density(const TruncatedPoint& point) const {
  if (side_ == Side::bulk) return log_normal_density(point.value) - log_mass_;
  // φ(a + w) / (Q(a) − Q(b)) = λ(a) e^{−w (a + w/2)} / (1 − Q(b)/Q(a)), from the nearer end.
  const double w = side_ == Side::right ? point.above_lower : point.below_upper;
  return std::log(mills_near_) - w * (near() + 0.5 * w) - log_one_minus_exp(log_far_ratio_);
}

double TruncatedNormal::cdf(const TruncatedPoint& point) const {
  if (!(point.above_lower > 0.0)) return 0.0;
  if (!(point.below_upper > 0.0)) return 1.0;
  if (side_ == Side::bulk) {
    return std::clamp((std::erf(point.value * kSqrtHalf) - erf_a_) / erf_width_, 0.0, 1.0);
  }
  const TailEnd end{near(), log_tail_near_, mills_near_};
  if (side_ == Side::right) {
    // (Q(a) − Q(τ)) / (Q(a) − Q(b)), both relative to Q(a).
    return std::expm1(log_tail_ratio(end, point.above_lower)) / std::expm1(log_far_ratio_);
  }
  // Mirrored, Z' = −Z on [−b, −a]: (Q(−τ) − Q(−a)) / (Q(−b) − Q(−a)), relative to Q(−b), so
  // that the small probabilities far from b keep their digits.
  return (std::exp(log_tail_ratio(end, point.below_upper)) - std::exp(log_far_ratio_)) /
         -std::expm1(log_far_ratio_);
}

TruncatedPoint TruncatedNormal::quantile(double p, double q) const {
  if (!(p > 0.0)) return {a_, 0.0, width_};
  if (!(q > 0.0)) return {b_, width_, 0.0};
  if (side_ != Side::bulk) {
    // Right of 0 (left: the mirror with p and q exchanged), Q(τ) = Q(a) (1 − p D),
    // D = 1 − Q(b)/Q(a); for p near 1 from q: 1 − p D = Q(b)/Q(a) + q D.
    const bool right = side_ == Side::right;
    const double toward = right ? p : q;
    const double away = right ? q : p;
    const double share = -std::expm1(log_far_ratio_);  // D
    const double relative = toward < 0.5 ? std::log1p(-toward * share)
                                         : std::log(std::exp(log_far_ratio_) + away * share);
    const double offset =
        std::min(tail_offset(TailEnd{near(), log_tail_near_, mills_near_}, relative), width_);
    if (right) return {a_ + offset, offset, width_ - offset};
    return {b_ - offset, width_ - offset, offset};
  }
  // Both tails of the bulk: from whichever of P(Z ≤ τ) = Φ(a) + p M and P(Z > τ) = Q(b) + q M
  // is at most ½ (they sum to 1), M the mass of [a, b].
  const double mass = 0.5 * erf_width_;
  const double above = 0.5 * std::erfc(b_ * kSqrtHalf) + q * mass;
  const double below = 0.5 * std::erfc(-a_ * kSqrtHalf) + p * mass;
  const double x = std::clamp(above <= 0.5 ? inverse_log_upper_tail(std::log(above))
                                           : -inverse_log_upper_tail(std::log(below)),
                              a_, b_);
  return {x, x - a_, b_ - x};
}

double log_normal_mass(double a, double b) { return TruncatedNormal(a, b).log_mass(); }

double truncated_normal_log_density(double a, double b, const TruncatedPoint& point) {
  return TruncatedNormal(a, b).log_density(point);
}

double truncated_normal_cdf(double a, double b, const TruncatedPoint& point) {
  return TruncatedNormal(a, b).cdf(point);
}

TruncatedPoint truncated_normal_quantile(double a, double b, double p, double q) {
  return TruncatedNormal(a, b).quantile(p, q);
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
      standard_((lower - center) / spread, (upper - center) / spread),
      log_spread_(std::log(spread)) {}

bool TruncatedComponent::truncated() const {
  return std::isfinite(standard_.a()) || std::isfinite(standard_.b());
}

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
  if (mode == a() && std::isfinite(lower_)) return lower_ + spread_ * offset;
  if (mode == b() && std::isfinite(upper_)) return upper_ + spread_ * offset;
  return center_ + spread_ * (mode + offset);
}

double TruncatedComponent::log_pdf(double t) const {
  if (!(t >= lower_ && t <= upper_)) return -INFINITY;
  return standard_.log_density(point(t)) - log_spread_;
}

double TruncatedComponent::cdf(double t) const { return standard_.cdf(point(t)); }

TruncatedPoint TruncatedComponent::quantile(double p) const {
  return standard_.quantile(p, 1.0 - p);
}

}  // namespace cdens::detail

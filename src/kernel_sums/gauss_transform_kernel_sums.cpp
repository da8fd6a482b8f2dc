#include "kernel_sums/gauss_transform_kernel_sums.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "parallel/parallel.hpp"

namespace cdens {
namespace {

// Cramér's inequality, |He_n(x)| e^{−x²/4} ≤ K √(n!) with K < 1.086435 (Greengard & Strain use
// it in the form |H_n(x)| e^{−x²/2} ≤ K 2^{n/2} √(n!)); rounded up.
constexpr double kCramer = 1.09;
// Points per pass of the accumulation: one GEMM of p × chunk by chunk × p^{d−1}.
constexpr Index kChunk = 512;
constexpr Index kLargestOrder = 40;
// The plan keeps a quarter of the tolerance for the truncation of a typical box and a quarter for
// the cutoff; the rest is slack for the boxes where the points lie farther.
constexpr double kBudgetShare = 0.25;
// The lower bound of a box's sum looks this many kernel widths around it.
constexpr double kLowerBoundReach = 10.0;
// Queries farther than this beyond the points' bounding box are left to the other paths.
constexpr double kGridMargin = 1.0;
constexpr double kCellBudget = 8388608.0;
constexpr double kBoxSides[] = {0.5, 1.0, 2.0};

/// K ρ^p / √(p!): Cramér's bound on the p-th derivative of e^{−x²/2} (≤ K √(p!) e^{−x²/4}) times
/// ρ^p / p!, the Lagrange remainder of the series over |q − c| ≤ ρ.
double truncation_factor(double radius, Index order) {
  return kCramer * std::exp(static_cast<double>(order) * std::log(radius) -
                            0.5 * std::lgamma(static_cast<double>(order) + 1.0));
}

/// The smallest order p whose truncation bound, for points spread evenly around a box, is within
/// kBudgetShare of the tolerance: per dimension the bound of a point δ beyond the box decays as
/// e^{−δ²/4} against its kernel's e^{−x²/2}, whose integrals differ by (L + 2√π) / √(2π).
std::optional<Index> order_for(double side, Index d, double relative_tolerance) {
  const double spread = (side + 2.0 * std::sqrt(M_PI)) / std::sqrt(2.0 * M_PI);
  for (Index order = 1; order <= kLargestOrder; ++order) {
    if (static_cast<double>(d) * spread * truncation_factor(0.5 * side, order) <=
        kBudgetShare * relative_tolerance) {
      return order;
    }
  }
  return std::nullopt;
}

Index power(Index base, Index exponent) {
  Index result = 1;
  for (Index k = 0; k < exponent; ++k) result *= base;
  return result;
}

/// The cells within `reach` cells of `cell` along every axis (clamped to the grid).
void cube_around(const CellGrid& grid, const std::vector<Index>& at, Index reach,
                 std::vector<Index>* low, std::vector<Index>* high) {
  for (std::size_t k = 0; k < at.size(); ++k) {
    (*low)[k] = std::max<Index>(0, at[k] - reach);
    (*high)[k] = std::min<Index>(grid.counts[k] - 1, at[k] + reach);
  }
}

/// A lower bound of every sum in box `cell`: the weight of the cells within k of it times the
/// kernel at their farthest, the best over k.
double sum_lower_bound(const CellGrid& grid, const std::vector<Index>& at) {
  const double d = static_cast<double>(grid.dimension());
  std::vector<Index> low(at.size());
  std::vector<Index> high(at.size());
  double best = 0.0;
  for (Index k = 0; static_cast<double>(k + 1) * grid.side <= kLowerBoundReach; ++k) {
    cube_around(grid, at, k, &low, &high);
    const double farthest = static_cast<double>(k + 1) * grid.side;
    best = std::max(best, grid.weight_in(low, high) * std::exp(-0.5 * d * farthest * farthest));
  }
  return best;
}

/// The points within the cutoff of a box, gathered from the grid's runs of cells, their
/// coordinates relative to the box's centre: one buffer, processed in chunks of kChunk.
struct NearPoints {
  Matrix points;  // d × N
  Vector weights;
};

/// The per-chunk work of one box: the series' factors and the box's bound.
struct BoxAccumulator {
  Index d = 0;
  Index order = 0;
  double radius = 0.0;          // ρ = L / 2
  double truncation = 0.0;      // K ρ^p / √(p!)
  std::vector<Matrix> factors;  // F_k(i, n) = He_n(v) e^{−v²/2} ρ^n / n!, v = p_ik − c_k
  Matrix products;              // w_i Π_{k≥1} F_k(i, n_k), columns n_1 + p n_2
  Matrix coefficients;          // p × p^{d−1}
  double truncation_bound = 0.0;
  double magnitude = 0.0;  // Σ_i w_i Π_k Σ_n |F_k(i, n)|: the scale of the rounding

  BoxAccumulator(Index dimension, Index p, double side)
      : d(dimension),
        order(p),
        radius(0.5 * side),
        truncation(truncation_factor(0.5 * side, p)),
        factors(static_cast<std::size_t>(dimension)),
        coefficients(Matrix::Zero(p, power(p, dimension - 1))) {}

  /// Adds the gathered points begin … end − 1 (at most kChunk).
  void add(const NearPoints& near, Index begin, Index end) {
    const Index count = end - begin;
    const Eigen::ArrayXd w = near.weights.segment(begin, count).array();
    Eigen::ArrayXd absolute_product = w;
    // Per dimension: E_l = e^{−δ_l²/2} bounds the kernel's factor over the box and
    // R_l = K ρ^p/√(p!) e^{−δ_l²/4} the remainder of its series (δ_l: the point's distance from
    // the box along l). The product's remainder telescopes:
    // |Π_l e_l − Π_l T_l| ≤ Σ_k R_k Π_{l<k} (E_l + R_l) Π_{l>k} E_l.
    Eigen::ArrayXd error = Eigen::ArrayXd::Zero(count);
    Eigen::ArrayXd lower_product = Eigen::ArrayXd::Ones(count);  // Π_{l<k} (E_l + R_l)
    std::vector<Eigen::ArrayXd> envelopes(static_cast<std::size_t>(d));
    std::vector<Eigen::ArrayXd> remainders(static_cast<std::size_t>(d));
    for (Index k = 0; k < d; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const Eigen::ArrayXd v = near.points.row(k).segment(begin, count).transpose().array();
      Matrix& f = factors[kk];
      f.resize(count, order);
      f.col(0) = (-0.5 * v.square()).exp().matrix();
      if (order > 1) f.col(1) = (radius * v * f.col(0).array()).matrix();
      // He_{n+1} = v He_n − n He_{n−1}, scaled by ρ^{n+1}/(n+1)!.
      for (Index n = 1; n + 1 < order; ++n) {
        f.col(n + 1) = (radius / static_cast<double>(n + 1) *
                        (v * f.col(n).array() - radius * f.col(n - 1).array()))
                           .matrix();
      }
      absolute_product *= f.cwiseAbs().rowwise().sum().array();
      const Eigen::ArrayXd beyond = (v.abs() - radius).max(0.0);
      envelopes[kk] = (-0.5 * beyond.square()).exp();
      remainders[kk] = truncation * envelopes[kk].sqrt();
    }
    for (Index k = 0; k < d; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      Eigen::ArrayXd term = remainders[kk] * lower_product;
      for (Index l = k + 1; l < d; ++l) term *= envelopes[static_cast<std::size_t>(l)];
      error += term;
      lower_product *= envelopes[kk] + remainders[kk];
    }
    truncation_bound += (w * error).sum();
    magnitude += absolute_product.sum();
    // C(n_0, n_1 + p n_2) += Σ_i F_0(i, n_0) w_i F_1(i, n_1) F_2(i, n_2): one GEMM.
    if (d == 1) {
      coefficients.noalias() += factors[0].transpose() * w.matrix();
      return;
    }
    products.resize(count, coefficients.cols());
    for (Index a = 0; a < order; ++a) {
      const Eigen::ArrayXd weighted = w * factors[1].col(a).array();
      if (d == 2) {
        products.col(a) = weighted.matrix();
      } else {
        for (Index b = 0; b < order; ++b) {
          products.col(a + order * b) = (weighted * factors[2].col(b).array()).matrix();
        }
      }
    }
    coefficients.noalias() += factors[0].transpose() * products;
  }
};

/// Σ_α C_α Π_k ((q_k − c_k)/ρ)^{α_k} at the queries `indices` (all in the box): the powers of
/// each dimension as columns, then one GEMM, C times the products of the powers beyond the first.
Vector evaluate(const BoxAccumulator& box, const std::vector<double>& centre,
                const MatrixView& queries, const Index* indices, Index count) {
  const Index p = box.order;
  std::vector<Matrix> powers(static_cast<std::size_t>(box.d), Matrix(p, count));
  for (Index k = 0; k < box.d; ++k) {
    Matrix& to = powers[static_cast<std::size_t>(k)];
    for (Index r = 0; r < count; ++r) {
      const double u = (queries(k, indices[r]) - centre[static_cast<std::size_t>(k)]) / box.radius;
      to(0, r) = 1.0;
      for (Index n = 1; n < p; ++n) to(n, r) = to(n - 1, r) * u;
    }
  }
  if (box.d == 1) return powers[0].transpose() * box.coefficients.col(0);
  Matrix rest(box.coefficients.cols(), count);
  if (box.d == 2) {
    rest = powers[1];
  } else {
    for (Index r = 0; r < count; ++r) {
      for (Index b = 0; b < p; ++b) {
        rest.col(r).segment(p * b, p) = powers[1].col(r) * powers[2](b, r);
      }
    }
  }
  const Matrix inner = box.coefficients * rest;
  return (powers[0].array() * inner.array()).colwise().sum().transpose();
}

/// Calls visit(begin, end) for each run of grid columns whose cells lie within `cutoff` of box
/// `at` (cells within ⌈g/L⌉ along every axis, less the corners whose nearest point is at least g
/// away): a row of cells along dimension 0 is one run.
template <class Visit>
void for_each_near_run(const CellGrid& grid, const std::vector<Index>& at, double cutoff,
                       Visit visit) {
  const Index d = grid.dimension();
  const double side = grid.side;
  const Index reach = static_cast<Index>(std::ceil(cutoff / side));
  const auto gap = [&](Index offset) {
    const double cells = static_cast<double>(std::max<Index>(0, std::abs(offset) - 1));
    return cells * cells * side * side;
  };
  const auto row = [&](Index base, double squared) {
    const double left = cutoff * cutoff - squared;
    if (left <= 0.0) return;
    const Index row_reach =
        std::min(reach, static_cast<Index>(std::floor(std::sqrt(std::max(0.0, left)) / side)) + 1);
    const Index low = std::max<Index>(0, at[0] - row_reach);
    const Index high = std::min<Index>(grid.counts[0] - 1, at[0] + row_reach);
    const Index begin = grid.first[static_cast<std::size_t>(base + low)];
    const Index end = grid.first[static_cast<std::size_t>(base + high + 1)];
    if (end > begin) visit(begin, end);
  };
  if (d == 1) {
    row(0, 0.0);
    return;
  }
  const Index low1 = std::max<Index>(0, at[1] - reach);
  const Index high1 = std::min<Index>(grid.counts[1] - 1, at[1] + reach);
  const Index low2 = d == 3 ? std::max<Index>(0, at[2] - reach) : 0;
  const Index high2 = d == 3 ? std::min<Index>(grid.counts[2] - 1, at[2] + reach) : 0;
  for (Index c2 = low2; c2 <= high2; ++c2) {
    const double squared2 = d == 3 ? gap(c2 - at[2]) : 0.0;
    for (Index c1 = low1; c1 <= high1; ++c1) {
      const Index base = c1 * grid.strides[1] + (d == 3 ? c2 * grid.strides[2] : 0);
      row(base, squared2 + gap(c1 - at[1]));
    }
  }
}

/// The points for_each_near_run visits around `at`, relative to `centre`, into `near`.
void gather_near_points(const CellGrid& grid, const std::vector<Index>& at, double cutoff,
                        const std::vector<double>& centre, NearPoints* near) {
  Index total = 0;
  for_each_near_run(grid, at, cutoff, [&](Index begin, Index end) { total += end - begin; });
  const Index d = grid.dimension();
  near->points.resize(d, total);
  near->weights.resize(total);
  const Eigen::Map<const Vector> origin(centre.data(), d);
  Index to = 0;
  for_each_near_run(grid, at, cutoff, [&](Index begin, Index end) {
    near->points.middleCols(to, end - begin) =
        grid.points.middleCols(begin, end - begin).colwise() - origin;
    near->weights.segment(to, end - begin) = grid.weights.segment(begin, end - begin);
    to += end - begin;
  });
}

/// The number of points for_each_near_run visits around `at` (the cube of cells, an upper
/// bound of it, for the plan).
double near_points(const CellGrid& grid, const std::vector<Index>& at, double cutoff) {
  const Index reach = static_cast<Index>(std::ceil(cutoff / grid.side));
  std::vector<Index> low(at.size());
  std::vector<Index> high(at.size());
  cube_around(grid, at, reach, &low, &high);
  return grid.count_in(low, high);
}

/// The points a dual tree of blocks of kKernelSumBlock (256) points sums per query around a box
/// whose cutoff ball holds about `near` points: blocks of side s = (256 / density)^{1/d} on both
/// sides widen the ball's radius to about g + s √d (at most n). The query blocks hold at most
/// kQueryBlock (32) queries, so on the queries' side the widening is smaller and the estimate errs
/// high, towards the Gauss transform.
double dual_tree_near_field(const CellGrid& grid, double near, double cutoff, double n) {
  if (!std::isfinite(cutoff) || near <= 0.0) return n;
  const double d = static_cast<double>(grid.dimension());
  const double reach = std::ceil(cutoff / grid.side);
  const double density = near / std::pow((2.0 * reach + 1.0) * grid.side, d);
  const double block_side = std::pow(256.0 / density, 1.0 / d);
  const double radius = cutoff + block_side * std::sqrt(d);
  const double unit_ball = std::pow(M_PI, 0.5 * d) / std::tgamma(0.5 * d + 1.0);
  return std::min(n, density * unit_ball * std::pow(radius, d));
}

/// Σ_i w_i e^{−½‖q − p_i‖²} over the points near a box, term by term, for the box's queries:
/// Greengard and Strain's direct regime, for boxes whose series would cost more. Exponents in
/// the GEMM form −½‖p̃‖² − ½‖q̃‖² + p̃ᵀq̃ about the box's centre (so ‖p̃‖ and ‖q̃‖ stay within
/// the cutoff plus a box), Eigen's vectorised exp, one GEMV per chunk.
struct DirectSums {
  Matrix queries;                   // d × m_b, relative to the box's centre
  Eigen::RowVectorXd query_halves;  // −½‖q̃_j‖²
  Vector sums;
  Matrix exponents;

  explicit DirectSums(Matrix box_queries)
      : queries(std::move(box_queries)),
        query_halves(-0.5 * queries.colwise().squaredNorm()),
        sums(Vector::Zero(queries.cols())) {}

  void add(const NearPoints& near, Index begin, Index end) {
    const Index count = end - begin;
    const auto points = near.points.middleCols(begin, count);
    exponents.noalias() = points.transpose() * queries;
    exponents.colwise() += (-0.5 * points.colwise().squaredNorm()).transpose();
    exponents.rowwise() += query_halves;
    exponents = exponents.array().exp().matrix();
    sums.noalias() += exponents.transpose() * near.weights.segment(begin, count);
  }
};

std::vector<double> centre_of(const CellGrid& grid, const std::vector<Index>& at) {
  std::vector<double> centre(at.size());
  for (std::size_t k = 0; k < at.size(); ++k) {
    centre[k] = grid.start[k] + (static_cast<double>(at[k]) + 0.5) * grid.side;
  }
  return centre;
}

/// The plan for one box side.
std::optional<GaussTransformPlan> plan_for_side(const KernelSumReference& reference,
                                                const MatrixView& queries, double side,
                                                double relative_tolerance,
                                                const GaussTransformCosts& costs, bool by_cost) {
  const Index d = reference.dimension();
  const std::optional<Index> order = order_for(side, d, relative_tolerance);
  if (!order) return std::nullopt;
  std::optional<CellGrid> grid = make_cell_grid(reference, side, kGridMargin, kCellBudget);
  if (!grid) return std::nullopt;
  GaussTransformPlan plan;
  plan.grid = std::move(*grid);
  plan.order = *order;
  const Index p = plan.order;
  const double pair_cost =
      static_cast<double>(d) * (costs.exponential + costs.recurrence * static_cast<double>(p)) +
      costs.coefficient * static_cast<double>(power(p, d));
  const double query_cost = costs.coefficient * static_cast<double>(power(p, d) + d * p);

  // Queries sorted by cell (stable, so the order within a box is the queries' order).
  const Index m = queries.cols();
  std::vector<std::pair<Index, Index>> placed;
  placed.reserve(static_cast<std::size_t>(m));
  for (Index j = 0; j < m; ++j) {
    const Index cell = plan.grid.cell_of(queries.col(j).data());
    if (cell < 0) {
      plan.unplaced.push_back(j);
    } else {
      placed.emplace_back(cell, j);
    }
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const double n = static_cast<double>(reference.size());
  plan.cost = static_cast<double>(plan.unplaced.size()) * n * costs.exact_pair;
  plan.tree_pairs = static_cast<double>(plan.unplaced.size()) * n;
  for (std::size_t at = 0; at < placed.size();) {
    std::size_t end = at;
    while (end < placed.size() && placed[end].first == placed[at].first) ++end;
    const Index cell = placed[at].first;
    const std::vector<Index> coordinates = plan.grid.coordinates(cell);
    const double lower = sum_lower_bound(plan.grid, coordinates);
    // Points farther than g add at most e^{−g²/2} (the weights sum to 1): kBudgetShare of the
    // tolerance times the box's lower bound.
    const double cutoff =
        lower > 0.0 ? std::sqrt(2.0 * std::log(1.0 / (kBudgetShare * relative_tolerance * lower)))
                    : std::numeric_limits<double>::infinity();
    const double queries_here = static_cast<double>(end - at);
    const double near = std::isfinite(cutoff) ? near_points(plan.grid, coordinates, cutoff) : n;
    // Gathering the near points: a run per row of cells within the cutoff, a copy per point.
    const double rows = std::pow(2.0 * std::ceil(cutoff / side) + 1.0, static_cast<double>(d - 1));
    const double gathering = rows * costs.row + near * costs.gather;
    const double expansion = gathering + near * pair_cost + queries_here * query_cost;
    const double direct = gathering + queries_here * near * costs.exact_pair;
    plan.tree_pairs += queries_here * dual_tree_near_field(plan.grid, near, cutoff, n);
    if (std::isfinite(cutoff)) {
      const bool series = !by_cost || expansion <= direct;
      plan.cost += series ? expansion : direct;
      plan.box_first.push_back(static_cast<Index>(plan.query_order.size()));
      plan.box_cell.push_back(cell);
      plan.box_cutoff.push_back(cutoff);
      plan.box_direct.push_back(series ? 0 : 1);
      for (std::size_t r = at; r < end; ++r) plan.query_order.push_back(placed[r].second);
    } else {
      plan.cost += queries_here * n * costs.exact_pair;
      for (std::size_t r = at; r < end; ++r) plan.unplaced.push_back(placed[r].second);
    }
    at = end;
  }
  plan.box_first.push_back(static_cast<Index>(plan.query_order.size()));
  return plan;
}

}  // namespace

std::optional<GaussTransformPlan> plan_gauss_transform(const KernelSumReference& reference,
                                                       const MatrixView& centred_queries,
                                                       double relative_tolerance,
                                                       const GaussTransformCosts& costs,
                                                       bool by_cost) {
  if (reference.dimension() > 3 || !(relative_tolerance > 0.0)) return std::nullopt;
  std::optional<GaussTransformPlan> best;
  for (const double side : kBoxSides) {
    std::optional<GaussTransformPlan> plan =
        plan_for_side(reference, centred_queries, side, relative_tolerance, costs, by_cost);
    if (plan && (!best || plan->cost < best->cost)) best = std::move(plan);
  }
  return best;
}

Vector gauss_transform_log_kernel_sums(const GaussTransformPlan& plan,
                                       const MatrixView& centred_queries, double relative_tolerance,
                                       int threads, std::vector<Index>* recompute,
                                       GaussTransformValues* values) {
  const CellGrid& grid = plan.grid;
  const Index d = grid.dimension();
  const Index boxes = static_cast<Index>(plan.box_cell.size());
  Vector result =
      Vector::Constant(centred_queries.cols(), std::numeric_limits<double>::quiet_NaN());
  std::vector<char> failed(plan.query_order.size(), 0);
  if (values != nullptr) {
    values->sums = Vector::Constant(result.size(), std::numeric_limits<double>::quiet_NaN());
    values->bounds = values->sums;
  }
  const double epsilon = std::numeric_limits<double>::epsilon();
  parallel_for(threads, boxes, [&](Index b) {
    const std::size_t bb = static_cast<std::size_t>(b);
    const std::vector<Index> at = grid.coordinates(plan.box_cell[bb]);
    const std::vector<double> centre = centre_of(grid, at);
    const double cutoff = plan.box_cutoff[bb];
    const double left_out = std::exp(-0.5 * cutoff * cutoff);
    const Index first = plan.box_first[bb];
    const Index count = plan.box_first[bb + 1] - first;
    const Index* indices = &plan.query_order[static_cast<std::size_t>(first)];
    Vector box_values;
    Vector box_bounds;
    NearPoints near;
    gather_near_points(grid, at, cutoff, centre, &near);
    const Index points = near.weights.size();
    if (plan.box_direct[bb]) {
      const Eigen::Map<const Vector> origin(centre.data(), d);
      Matrix box_queries(d, count);
      for (Index r = 0; r < count; ++r) {
        box_queries.col(r) = centred_queries.col(indices[r]) - origin;
      }
      DirectSums direct(std::move(box_queries));
      for (Index from = 0; from < points; from += kChunk) {
        direct.add(near, from, std::min(points, from + kChunk));
      }
      // Left out: points at least g away, of weight at most 1. Rounding: N non-negative terms,
      // each exponent's GEMM form within (d + 2) ε (‖p̃‖² + ‖q̃‖²) of the exact one, where
      // ‖p̃‖ ≤ g + L √d and ‖q̃‖ ≤ L √d / 2.
      const double reach = cutoff + grid.side * std::sqrt(static_cast<double>(d));
      const double rounding = static_cast<double>(points + 2 * d + 8) * epsilon +
                              2.0 * static_cast<double>(d + 2) * epsilon * reach * reach;
      box_values = direct.sums;
      box_bounds = (1.01 * (left_out + rounding * direct.sums.array())).matrix();
    } else {
      BoxAccumulator box(d, plan.order, grid.side);
      for (Index from = 0; from < points; from += kChunk) {
        box.add(near, from, std::min(points, from + kChunk));
      }
      // Left out: as above. Rounding: every coefficient is a sum of N terms and the polynomial
      // one of p^d, each term below the magnitude in absolute value (|q − c| ≤ ρ); the Hermite
      // recurrence adds a few ulps per order.
      const double rounding =
          static_cast<double>(points + power(plan.order, d) + 4 * d * plan.order) * epsilon *
          box.magnitude;
      box_values = evaluate(box, centre, centred_queries, indices, count);
      box_bounds = Vector::Constant(count, 1.01 * (box.truncation_bound + left_out + rounding));
    }
    for (Index r = first; r < plan.box_first[bb + 1]; ++r) {
      const Index j = plan.query_order[static_cast<std::size_t>(r)];
      const double value = box_values(r - first);
      const double bound = box_bounds(r - first);
      if (values != nullptr) {
        values->sums(j) = value;
        values->bounds(j) = bound;
      }
      if (bound <= relative_tolerance * (value - bound)) {
        result(j) = std::log(value);
      } else {
        failed[static_cast<std::size_t>(r)] = 1;
      }
    }
  });
  *recompute = plan.unplaced;
  for (std::size_t r = 0; r < failed.size(); ++r) {
    if (failed[r]) recompute->push_back(plan.query_order[r]);
  }
  std::sort(recompute->begin(), recompute->end());
  return result;
}

}  // namespace cdens

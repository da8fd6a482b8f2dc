#include "cdens/core/column_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cdens/core/types.hpp"
#include "core/log_space.hpp"
#include "io/json_io.hpp"
#include "io/json_reading.hpp"

namespace cdens {
namespace {

/// A value for a message: integers without a decimal point, others to 10 significant digits.
std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.10g", value);
  return buffer;
}

}  // namespace

std::string to_string(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::unordered:
      return "unordered";
    case ColumnKind::ordered:
      return "ordered";
    case ColumnKind::continuous:
      break;
  }
  return "continuous";
}

ColumnKind parse_column_kind(const std::string& name) {
  for (const auto kind : {ColumnKind::continuous, ColumnKind::unordered, ColumnKind::ordered}) {
    if (name == to_string(kind)) return kind;
  }
  throw ModelFormatError("unknown column kind '" + name + "' (continuous, unordered or ordered)");
}

ColumnKernel::ColumnKernel(ColumnKind kind, std::vector<double> levels, const std::string& name)
    : kind_(kind), levels_(std::move(levels)) {
  if (kind_ == ColumnKind::continuous) {
    throw InvalidArgument(name + ": a continuous column has no levels");
  }
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    if (!std::isfinite(levels_[l]) || (l > 0 && !(levels_[l - 1] < levels_[l]))) {
      throw InvalidArgument(name +
                            ": the levels of a discrete column must be finite and "
                            "increasing");
    }
  }
  if (levels_.size() < 2) {
    throw InvalidArgument("column " + name + " is declared " + to_string(kind_) +
                          " but has only one level" +
                          (levels_.empty() ? "" : " (" + number_text(levels_.front()) + ")") +
                          ": a discrete column needs at least two");
  }
  if (kind_ == ColumnKind::ordered) {
    for (const double level : levels_) {
      if (level != std::round(level)) {
        throw InvalidArgument("column " + name + " is declared ordered but holds the value " +
                              number_text(level) +
                              ": ordered columns take integer levels (recode them as ranks, or "
                              "declare the column unordered)");
      }
    }
  }
}

ColumnKernel ColumnKernel::of_values(ColumnKind kind, const VectorView& values,
                                     const std::string& name) {
  if (!values.allFinite()) throw InvalidArgument("column " + name + " holds NaN or infinity");
  std::vector<double> levels(values.data(), values.data() + values.size());
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return ColumnKernel(kind, std::move(levels), name);
}

Index ColumnKernel::level_index(double value) const {
  const auto found = std::lower_bound(levels_.begin(), levels_.end(), value);
  if (found == levels_.end() || *found != value) return -1;
  return static_cast<Index>(found - levels_.begin());
}

double ColumnKernel::max_smoothing() const {
  if (kind_ == ColumnKind::unordered) {
    return static_cast<double>(n_levels() - 1) / static_cast<double>(n_levels());
  }
  return 1.0;
}

void ColumnKernel::require_smoothing(double lambda, const std::string& name) const {
  const double upper = max_smoothing();
  const bool ordered = kind_ == ColumnKind::ordered;
  if (!(lambda > 0.0) || !(ordered ? lambda < upper : lambda <= upper)) {
    throw InvalidArgument("the smoothing parameter λ of " + to_string(kind_) + " column " + name +
                          " must lie in (0, " + number_text(upper) + (ordered ? ")" : "]") +
                          ", got " + number_text(lambda));
  }
}

double ColumnKernel::smoothing_of(double theta) const {
  return max_smoothing() / (1.0 + std::exp(-theta));
}

double ColumnKernel::parameter_of(double lambda) const {
  return std::log(lambda) - std::log(max_smoothing() - lambda);
}

double ColumnKernel::log_weight(double a, double b, double lambda) const {
  if (kind_ == ColumnKind::unordered) {
    return a == b ? std::log1p(-lambda)
                  : std::log(lambda) - std::log(static_cast<double>(n_levels() - 1));
  }
  const double log_off_diagonal = std::log(0.5) + std::log1p(-lambda);
  return a == b ? std::log1p(-lambda) : log_off_diagonal + std::abs(a - b) * std::log(lambda);
}

ColumnKernelTable ColumnKernel::table(double lambda, bool normalized) const {
  const double s = lambda / max_smoothing();
  return table_of(s, 1.0 - s, normalized, false);
}

ColumnKernelTable ColumnKernel::table_at_parameter(double theta, bool normalized) const {
  return table_of(1.0 / (1.0 + std::exp(-theta)), 1.0 / (1.0 + std::exp(theta)), normalized, true);
}

ColumnKernelTable ColumnKernel::table_of(double s, double s_bar, bool normalized,
                                         bool derivatives) const {
  const Index c = n_levels();
  ColumnKernelTable result{Matrix(c, c), Matrix(derivatives ? c : 0, derivatives ? c : 0)};
  if (kind_ == ColumnKind::unordered) {
    // Sums to 1 over the levels as it is: normalised or not, the same table.
    const double lambda = max_smoothing() * s;
    const double log_equal = std::log1p(-lambda);
    const double log_other = std::log(lambda) - std::log(static_cast<double>(c - 1));
    result.log_values.setConstant(log_other);
    result.log_values.diagonal().setConstant(log_equal);
    if (derivatives) {
      // d log λ / dθ = 1 − σ(θ); d log(1 − λ) / dθ = −λ (1 − σ) / (1 − λ).
      result.derivatives.setConstant(s_bar);
      result.derivatives.diagonal().setConstant(-lambda * s_bar / (1.0 - lambda));
    }
    return result;
  }
  // Wang–van Ryzin with λ = σ(θ): 1 − λ = s̄. Normalised over the levels, its common factor
  // (1 − λ) cancels, leaving 1 on the diagonal and ½ λ^m off it.
  const double log_s = std::log(s);
  for (Index b = 0; b < c; ++b) {
    for (Index a = 0; a < c; ++a) {
      const double m =
          std::abs(levels_[static_cast<std::size_t>(a)] - levels_[static_cast<std::size_t>(b)]);
      const double log_off = std::log(0.5) + m * log_s;
      if (normalized) {
        result.log_values(a, b) = a == b ? 0.0 : log_off;
        if (derivatives) result.derivatives(a, b) = m * s_bar;
      } else {
        result.log_values(a, b) = std::log(s_bar) + (a == b ? 0.0 : log_off);
        if (derivatives) result.derivatives(a, b) = -s + m * s_bar;
      }
    }
  }
  if (!normalized) return result;
  for (Index b = 0; b < c; ++b) {
    auto column = result.log_values.col(b);
    column.array() -= log_sum_exp(column);
    if (derivatives) {
      // ∂ log p(a|b) = ∂ log w(a, b) − Σ_a' p(a'|b) ∂ log w(a', b).
      const double mean = column.array().exp().matrix().dot(result.derivatives.col(b));
      result.derivatives.col(b).array() -= mean;
    }
  }
  return result;
}

nlohmann::json ColumnKernel::to_json() const {
  nlohmann::json document = {{"kind", to_string(kind_)}};
  if (is_discrete()) document["levels"] = levels_;
  return document;
}

ColumnKernel ColumnKernel::from_json(const nlohmann::json& document) {
  const auto& kind = json_member(document, "kind");
  if (!kind.is_string()) throw ModelFormatError("a column kernel's kind is not a string");
  const ColumnKind parsed = parse_column_kind(kind.get<std::string>());
  if (parsed == ColumnKind::continuous) return ColumnKernel();
  const Vector levels = vector_from_json(json_member(document, "levels"), "column levels");
  return reading_model_part("", [&] {
    return ColumnKernel(parsed, std::vector<double>(levels.data(), levels.data() + levels.size()),
                        "of the model file");
  });
}

bool any_discrete(const ColumnKernels& kernels) {
  return std::any_of(kernels.begin(), kernels.end(),
                     [](const ColumnKernel& kernel) { return kernel.is_discrete(); });
}

}  // namespace cdens

#pragma once
// The kernel of one column of a product-kernel estimator (docs/methods/kcde.md, "Mixed data"):
// Gaussian for a continuous column (its bandwidth h kept elsewhere), or a kernel over the c levels
// of a discrete column with smoothing parameter λ:
//
//   unordered (Aitchison & Aitken 1976, for c levels as in Li & Racine 2007):
//     L(a, b; λ) = 1 − λ if a = b,  λ / (c − 1) otherwise,            λ ∈ [0, (c − 1)/c];
//   ordered (Wang & van Ryzin 1981; the kernel of R's np and statsmodels):
//     L(a, b; λ) = 1 − λ if a = b,  ½ (1 − λ) λ^|a − b| otherwise,      λ ∈ [0, 1],
//
// with a and b compared as the raw values of the column (never standardised). λ = 0 counts only
// equal values; Aitchison–Aitken's λ = (c − 1)/c weighs every level alike.
//
// As the kernel of an output, a column's kernel must be a probability mass function over its
// levels. Aitchison–Aitken sums to 1 over the c levels already. Wang–van Ryzin sums to 1 over all
// the integers, not over the levels, so an output's ordered kernel is divided by its sum over the
// levels (a departure from np and statsmodels, whose ordered y does not sum to 1):
//
//   p(a | b; λ) = L(a, b; λ) / Σ_{a' ∈ levels} L(a', b; λ).
//
// The search works on an unconstrained θ with λ = λ_max σ(θ), σ the logistic function (Li &
// Racine 2007 search λ in its interval directly; the smooth map lets the search be L-BFGS).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// How a column is smoothed.
enum class ColumnKind {
  continuous,  ///< Gaussian kernel, bandwidth h (standardised units)
  unordered,   ///< Aitchison–Aitken kernel over the levels (categorical)
  ordered,     ///< Wang–van Ryzin kernel over integer levels
};

/// "continuous", "unordered" or "ordered".
std::string to_string(ColumnKind kind);
/// The kind of a to_string name; ModelFormatError otherwise (names are read from model files).
ColumnKind parse_column_kind(const std::string& name);

/// log L (or log p) of every pair of levels and its derivative in θ: c × c, row a (the value),
/// column b (the kernel's centre).
struct ColumnKernelTable {
  Matrix log_values;
  Matrix derivatives;  ///< ∂/∂θ with λ = λ_max σ(θ); empty when not asked for
};

class ColumnKernel {
 public:
  /// A continuous column.
  ColumnKernel() = default;
  /// A discrete column over `levels` (increasing, distinct, finite; at least two; integers for
  /// an ordered column). InvalidArgument otherwise, naming the column `name`.
  ColumnKernel(ColumnKind kind, std::vector<double> levels, const std::string& name = "column");
  /// The kernel of a discrete column whose levels are the distinct values of `values`.
  static ColumnKernel of_values(ColumnKind kind, const VectorView& values, const std::string& name);

  ColumnKind kind() const { return kind_; }
  bool is_discrete() const { return kind_ != ColumnKind::continuous; }
  /// The levels, increasing (empty for a continuous column).
  const std::vector<double>& levels() const { return levels_; }
  Index n_levels() const { return static_cast<Index>(levels_.size()); }
  /// The position of `value` among the levels, or −1 when it is none of them.
  Index level_index(double value) const;

  /// λ_max: (c − 1)/c unordered, 1 ordered.
  double max_smoothing() const;
  /// InvalidArgument naming `name` unless λ suits the kernel: 0 < λ ≤ λ_max, and λ < 1 for an
  /// ordered one (its L vanishes at λ = 1).
  void require_smoothing(double lambda, const std::string& name) const;
  /// λ = λ_max σ(θ).
  double smoothing_of(double theta) const;
  /// θ with smoothing_of(θ) = λ.
  double parameter_of(double lambda) const;

  /// log L(a, b; λ) of two raw values (either may be no level): the weight of an input.
  double log_weight(double a, double b, double lambda) const;
  /// The table of log L over the levels (`normalized` false, an input) or of log p(a | b), the
  /// kernel as a probability mass function over the levels (`normalized` true, an output).
  ColumnKernelTable table(double lambda, bool normalized) const;
  /// The same at λ = λ_max σ(θ), with the derivatives in θ.
  ColumnKernelTable table_at_parameter(double theta, bool normalized) const;

  /// {"kind": …} and, for a discrete column, "levels".
  nlohmann::json to_json() const;
  /// The kernel written by to_json(); ModelFormatError if malformed.
  static ColumnKernel from_json(const nlohmann::json& document);

 private:
  /// The tables at λ = λ_max s with s̄ = 1 − s given separately (accurate near s = 1).
  ColumnKernelTable table_of(double s, double s_bar, bool normalized, bool derivatives) const;

  ColumnKind kind_ = ColumnKind::continuous;
  std::vector<double> levels_;
};

/// The kernels of the columns (ColumnKernel() for a continuous one); a list of size zero means
/// every column is continuous.
using ColumnKernels = std::vector<ColumnKernel>;

/// Whether any kernel of `kernels` is discrete.
bool any_discrete(const ColumnKernels& kernels);

}  // namespace cdens

#pragma once
// Per-dimension standardisation z = (x − mean) / scale. The papers assume unit variance in every
// input and output dimension; models work on z and report densities in the user's units through
// the Jacobian of this map.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cdens/core/communicator.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

class Standardizer {
 public:
  /// Mean and sample standard deviation (divisor n − 1, as MATLAB's std) of each row of `data`.
  /// Throws DataError if a dimension is constant, naming it by `names[i]` when given.
  static Standardizer fit(const MatrixView& data, std::string_view what,
                          const std::vector<std::string>& names = {});

  /// As above for data whose samples are spread over the ranks of `communicator` (each rank
  /// passes its own): the global mean and standard deviation, the same on every rank and, on one
  /// rank, the same to the bit as fit(data, …). Every rank must call it.
  static Standardizer fit(const MatrixView& data, const Communicator& communicator,
                          std::string_view what, const std::vector<std::string>& names = {});

  /// As fit(data, what, names) for rows with positive sample weights w (one per column of
  /// `data`; empty: fit(data, what, names)): the weighted mean Σw x / Σw and the standard
  /// deviation sqrt(Σw (x − mean)² / Σw · n_e / (n_e − 1)) with Kish's effective size
  /// n_e = (Σw)² / Σw² in place of n, so that scaling every weight changes nothing and equal
  /// weights give the unweighted standardiser. On one process only.
  static Standardizer fit(const MatrixView& data, const Vector& weights, std::string_view what,
                          const std::vector<std::string>& names = {});

  /// The identity map in `dimension` dimensions.
  static Standardizer identity(Index dimension);

  Standardizer(Vector mean, Vector scale);

  Index dimension() const { return mean_.size(); }
  const Vector& mean() const { return mean_; }
  const Vector& scale() const { return scale_; }

  /// z = (x − mean) / scale for every column.
  Matrix transform(const MatrixView& data) const;
  /// transform() of points a fitted model is queried at: `data` must have dimension() rows and
  /// finite values, and so must z (a value too large for the scale overflows); errors name the
  /// points `what`.
  Matrix transform_query(const MatrixView& data, std::string_view what) const;
  /// x = mean + scale ∘ z for every column.
  Matrix inverse_transform(const MatrixView& standardized) const;

  /// log |det ∂z/∂x| = −Σ_i log scale_i, so that log p_x(x) = log p_z(z(x)) + log_jacobian().
  double log_jacobian() const;

  nlohmann::json to_json() const;
  static Standardizer from_json(const nlohmann::json& document);

 private:
  /// The fits above: empty `weights` for unweighted rows.
  static Standardizer fit_rows(const MatrixView& data, const Communicator& communicator,
                               const Vector& weights, std::string_view what,
                               const std::vector<std::string>& names);

  Vector mean_;
  Vector scale_;
};

}  // namespace cdens

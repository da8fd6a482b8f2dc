#pragma once
// The discrete output kernels of a conditional mixture (conditional_mixture.hpp): one part of its
// output side, beside the Gaussian components and the trend groups. An output dimension d with a
// discrete kernel (column_kernel.hpp) gives component k the factor p_d(y_d | c_kd; λ_d), the
// kernel's probability mass at y_d around the level c_kd, in place of a Gaussian density; the
// scales row of d holds λ_d. This part owns what that needs: its checks (no standardisation, one
// λ for every component, centres among the levels), its member of the model file, and its share
// of every query (log masses, moments over the levels, overlaps, draws, the distribution of a
// one-dimensional y).

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "cdens/core/column_kernel.hpp"
#include "cdens/core/rng.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"
#include "model/level_distribution.hpp"

namespace cdens::detail {

class DiscreteOutputs {
 public:
  /// The kernels of the d_y outputs (ColumnKernel() for a Gaussian one) for components of centres
  /// and scales d_y × K in `y_scaling`'s standardised units. InvalidArgument where a discrete
  /// output is standardised, its λ differs between components or suits not its kernel, or a centre
  /// is none of its levels.
  DiscreteOutputs(ColumnKernels kernels, const Standardizer& y_scaling, const Matrix& centers,
                  const Matrix& scales);

  /// Whether every output is Gaussian.
  bool empty() const { return outputs_.empty(); }
  /// The first discrete output dimension (of a part that is not empty).
  Index first_row() const { return outputs_.front().row; }
  /// The Gaussian output dimensions, increasing.
  const std::vector<Index>& gaussian_rows() const { return gaussian_rows_; }

  /// Adds Σ_d log p_d(t_d | c_kd) over the discrete outputs to values(k) for every component k
  /// (−∞ for all where a t_d is none of the levels); t is one output in standardised units.
  void add_log_masses(const VectorView& t, Eigen::Ref<Vector> values) const;
  /// Replaces the discrete rows of each component's mean and variance (d_y × K) by the moments
  /// of its kernel's masses over the levels.
  void set_moments(Matrix& means, Matrix& variances) const;
  /// Multiplies overlap(k, l) by Σ_a p_d(a | c_kd) p_d(a | c_ld) for every discrete output d.
  void multiply_overlaps(Matrix& overlap) const;
  /// Whether output dimension d is discrete.
  bool is_discrete(Index d) const { return kernels_[static_cast<std::size_t>(d)].is_discrete(); }
  /// A level of discrete output d drawn from component k's masses (the user's units: a discrete
  /// output is never standardised).
  double draw(Index d, Index k, Rng& rng) const;
  /// The distribution over the levels of a one-dimensional discrete y given the component
  /// probabilities π (K).
  LevelDistribution level_distribution(const VectorView& pi) const;

  /// Writes "output_kernels" into the model's document where an output is discrete.
  void write_json(nlohmann::json& document) const;
  /// The kernels of a model's document: its "output_kernels", or none (all Gaussian) in files
  /// written before discrete outputs existed. ModelFormatError if malformed.
  static ColumnKernels kernels_from_json(const nlohmann::json& document);

 private:
  struct Output {
    Index row;                            ///< the output dimension
    Matrix log_masses;                    ///< c × c: log p(level a | centre level b)
    Matrix cumulative_masses;             ///< c × c: Σ_{a' ≤ a} p(level a' | centre level b)
    std::vector<Index> component_levels;  ///< the level index of every component's centre
  };
  const Output& output_of(Index d) const;

  ColumnKernels kernels_;
  std::vector<Index> gaussian_rows_;
  std::vector<Output> outputs_;
};

}  // namespace cdens::detail

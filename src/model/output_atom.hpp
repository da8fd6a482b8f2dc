#pragma once
// The atom of a conditional mixture (conditional_mixture.hpp): one part of its output side,
// beside the Gaussian components, the discrete output kernels and the trend groups. A
// one-dimensional continuous y with a point mass at a value a (a zero-inflated output: hours,
// amounts, rainfall, claims) is modelled with some components being point masses at a instead of
// Gaussians:
//
//   P(y = a | x) = π_a(x) = Σ_{k ∈ A} π_k(x),   p(y | x) = Σ_{k ∉ A} π_k(x) N_k(y)  for y ≠ a,
//
// a density against the mixed measure μ = δ_a + Lebesgue (docs/methods/kcde.md, "Outputs with an
// atom"). This part owns what that needs: its checks (the components exist, increasing, and leave
// at least one Gaussian beside them; a finite value), its member of the model file
// ("output_atom"), and its share of the queries: the log-density against μ, the components'
// moments (a point mass has variance 0), the overlaps of ∫ p² dμ, and π_a.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "cdens/core/conditional_mixture.hpp"
#include "cdens/core/standardizer.hpp"
#include "cdens/core/types.hpp"

namespace cdens::detail {

class AtomComponents {
 public:
  /// The atom of a mixture of K components, in `y_scaling`'s standardisation; no atom where
  /// `atom` is empty. InvalidArgument where the value is not finite or the components are none,
  /// out of range, not increasing, or all K of them.
  AtomComponents(const std::optional<OutputAtom>& atom, Index n_components,
                 const Standardizer& y_scaling);

  /// Whether there is no atom.
  bool empty() const { return mask_.empty(); }
  /// The atom's value a in the user's units, and in the standardised units of y.
  double value() const { return value_; }
  double standardized_value() const { return standardized_value_; }
  /// Whether component k is a point mass at the atom (false for every k without an atom).
  bool is_atom(Index k) const { return !mask_.empty() && mask_[static_cast<std::size_t>(k)]; }
  /// Whether y (the user's units) is at the atom: equal to its value.
  bool at_atom(double y) const { return !empty() && y == value_; }

  /// The log-terms log π_k + log K_k(y) of one output y against the mixed measure, in place:
  /// at the atom `joint(k)` becomes log π_k (`log_weights`) for the atom's components and −∞ for
  /// the others (a Gaussian gives the point {a} no mass); elsewhere the atom's become −∞. Returns
  /// whether y is at the atom, where the log-density takes no Jacobian of the standardisation.
  bool apply(double y, const VectorView& log_weights, Eigen::Ref<Vector> joint) const;
  /// Zeroes the atom's columns of component densities against Lebesgue measure (P × K).
  void clear_columns(Matrix& densities) const;
  /// The atom's components have mean a and variance 0 (in standardised units, row 0).
  void set_moments(Matrix& means, Matrix& variances) const;
  /// π_a = Σ_{k ∈ A} π_k for every column of π (K × m).
  Vector probabilities(const MatrixView& pi) const;
  /// π_a for one column of probabilities.
  double probability(const VectorView& pi) const;

  /// Writes "output_atom" ({"value", "components"}) into the model's document where there is
  /// an atom.
  void write_json(nlohmann::json& document) const;
  /// The atom of a model's document: its "output_atom", or none (files without one).
  /// ModelFormatError if malformed.
  static std::optional<OutputAtom> from_json(const nlohmann::json& document);

 private:
  double value_ = 0.0;
  double standardized_value_ = 0.0;
  std::vector<Index> components_;
  std::vector<bool> mask_;  ///< per component; empty without an atom
};

}  // namespace cdens::detail

#pragma once
// Losses of a conditional density estimate on held-out pairs (LSCDE paper §2.5, eq. 10).

#include <string>
#include <string_view>

#include "cdens/core/conditional_mixture.hpp"

namespace cdens {

/// The criterion cross-validation minimises.
enum class CvLoss {
  kl,  ///< KL error up to a constant: the negative log-likelihood −(1/n) Σ log p̂(y_i|x_i)
  sq,  ///< SQ error up to a constant: (1/n) Σ [½ ∫ p̂(y|x_i)² dy − p̂(y_i|x_i)]
};

CvLoss parse_cv_loss(std::string_view name);
std::string to_string(CvLoss loss);

/// Mean log-likelihood (1/n) Σ log p̂(y_i | x_i), in the user's units.
double mean_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y);

/// NLL of eq. (10): −mean_log_likelihood.
double negative_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y);

/// The SQ criterion of §2.5 without its constant C_SQ.
double squared_loss(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y);

/// negative_log_likelihood or squared_loss.
double held_out_loss(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                     const MatrixView& y);

}  // namespace cdens

#pragma once
// K-fold splitting and the table of cross-validation results every estimator reports.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cdens/core/rng.hpp"
#include "cdens/core/types.hpp"

namespace cdens {

/// The samples 0 … n − 1 in random order, cut into K contiguous folds whose sizes differ by at
/// most one (LSCDE paper §2.5: "K disjoint subsets of approximately the same size").
class KFold {
 public:
  /// Throws InvalidArgument unless 2 ≤ folds ≤ n.
  KFold(Index n, int folds, Rng& rng);

  int n_folds() const { return static_cast<int>(test_.size()); }
  Index n_samples() const { return n_; }
  /// Held-out samples of fold k, increasing.
  const std::vector<Index>& test(int k) const { return test_[static_cast<std::size_t>(k)]; }
  /// The other samples, increasing.
  std::vector<Index> train(int k) const;

 private:
  Index n_;
  std::vector<std::vector<Index>> test_;
};

/// Cross-validated loss of every candidate of a hyper-parameter grid.
struct CvTable {
  std::vector<std::string> parameter_names;  ///< e.g. {"sigma", "lambda"}
  Matrix candidates;                         ///< one row per candidate, one column per name
  Vector mean_loss;                          ///< mean over folds of the held-out loss
  Vector standard_error;                     ///< standard deviation over folds / √K
  std::string loss;                          ///< "kl" (negative log-likelihood) or "sq"
  Index best = -1;                           ///< row with the smallest mean loss

  nlohmann::json to_json() const;
  static CvTable from_json(const nlohmann::json& document);
};

/// Row of the smallest finite mean loss; ties go to the earliest row.
Index best_candidate(const Vector& mean_loss);

/// `count` values spaced evenly in log between `low` and `high` (both included).
std::vector<double> log_spaced(double low, double high, int count);

}  // namespace cdens

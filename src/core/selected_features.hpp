#pragma once
// The check shared by the wrappers of a model fitted on some input features only (the
// selected-features gate and trend): the features are distinct inputs, one per inner input.

#include <algorithm>
#include <string>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// InvalidArgument naming `what` ("selected-features gate") unless `features` are distinct
/// indices into `input_dim` inputs, as many as the `inner_input_dim` inputs of the wrapped part,
/// and at least one.
inline void require_selected_features(const std::vector<Index>& features, Index input_dim,
                                      Index inner_input_dim, const std::string& what) {
  if (features.empty() || static_cast<Index>(features.size()) != inner_input_dim) {
    throw InvalidArgument(what + ": the features do not match the inputs of the wrapped part");
  }
  std::vector<Index> sorted = features;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || sorted.back() >= input_dim ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw InvalidArgument(what + ": features must be distinct inputs");
  }
}

}  // namespace cdens

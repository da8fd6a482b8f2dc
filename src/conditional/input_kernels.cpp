#include "conditional/input_kernels.hpp"

#include <algorithm>

#include "conditional/broad_component_gate.hpp"
#include "conditional/product_kernel_gate.hpp"
#include "conditional/selected_features_gate.hpp"

namespace cdens {

const ColumnKernel* discrete_input_kernel(const ConditionalGate& gate, Index d) {
  if (const auto* product = dynamic_cast<const ProductKernelGate*>(&gate)) {
    const ColumnKernels& kernels = product->kernels();
    if (d < 0 || d >= static_cast<Index>(kernels.size())) return nullptr;
    const ColumnKernel& kernel = kernels[static_cast<std::size_t>(d)];
    return kernel.is_discrete() ? &kernel : nullptr;
  }
  if (const auto* selected = dynamic_cast<const SelectedFeaturesGate*>(&gate)) {
    const std::vector<Index>& features = selected->features();
    const auto found = std::find(features.begin(), features.end(), d);
    if (found == features.end()) return nullptr;
    return discrete_input_kernel(selected->inner(), static_cast<Index>(found - features.begin()));
  }
  if (const auto* broad = dynamic_cast<const BroadComponentGate*>(&gate)) {
    return discrete_input_kernel(broad->inner(), d);
  }
  for (const PooledMember& member : gate.pooled_members()) {
    if (const ColumnKernel* kernel = discrete_input_kernel(*member.gate, d)) return kernel;
  }
  return nullptr;
}

}  // namespace cdens

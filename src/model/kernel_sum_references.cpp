#include "model/kernel_sum_references.hpp"

namespace cdens::detail {

const KernelSumReference& KernelSumReferences::operator()(
    const std::string& key, const std::function<KernelSumReference()>& prepare) {
  const std::lock_guard<std::mutex> lock(preparing_);
  std::unique_ptr<const KernelSumReference>& reference = references_[key];
  if (!reference) reference = std::make_unique<const KernelSumReference>(prepare());
  return *reference;
}

}  // namespace cdens::detail

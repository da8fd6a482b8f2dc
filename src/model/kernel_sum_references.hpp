#pragma once
// The kernel-sum engine's references of a model's sums (kernel_sum_reference.hpp: points and
// weights prepared, their trees built on first use), each prepared on its first query and kept for
// every later one of the model and of its copies. `cdens predict` answers its rows in blocks of
// 1,024; a model of 10^6 rows prepared the points of each of its sums again, and built their trees
// again, for every block: about 2 s a block, more than the block's sums.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens::detail {

class KernelSumReferences {
 public:
  /// The reference of the sum named `key`, made by `prepare` on the key's first use
  /// (thread-safe).
  const KernelSumReference& operator()(const std::string& key,
                                       const std::function<KernelSumReference()>& prepare);

 private:
  std::mutex preparing_;
  std::map<std::string, std::unique_ptr<const KernelSumReference>> references_;
};

}  // namespace cdens::detail

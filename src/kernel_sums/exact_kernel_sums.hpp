#pragma once
// The exact path of the kernel-sum engine: every term, in blocks.

#include "kernel_sums/kernel_sum_reference.hpp"

namespace cdens {

/// log Σ_i ŵ_i exp(−½‖q̃_j − p̃_i‖²) for every centred query q̃_j (columns of `queries`), without
/// approximation. Blocks of 256 queries (one task each, so the result does not depend on
/// `threads`) against blocks of points: the exponents log ŵ_i − ½‖p̃_i‖² − ½‖q̃_j‖² + p̃_iᵀq̃_j by
/// one GEMM, Eigen's vectorised exp, column sums. Exponents are floored at −700 (no subnormal
/// arithmetic); a query whose sum is then below e^−600, where the floor could matter, is
/// recomputed by a max-shifted log-sum-exp.
Vector exact_log_kernel_sums(const KernelSumReference& reference, const MatrixView& queries,
                             int threads);

}  // namespace cdens

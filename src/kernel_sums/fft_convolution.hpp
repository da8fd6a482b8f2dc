#pragma once
// Circular convolution with a separable, even kernel by FFT (Eigen's FFT module, kissfft
// backend), for the binned path of the kernel-sum engine.

#include <unsupported/Eigen/FFT>
#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// Eigen's FFT keeps the plan (twiddle factors) of every length it has transformed: one object
/// per computation shares them among its transforms; it is not shared between threads.
using FftPlans = Eigen::FFT<double>;

/// The DFT of a real even sequence x (x[t] = x[N − t]), which is real: N values.
Vector even_sequence_spectrum(const Vector& sequence, FftPlans& fft);

/// The circular convolutions values ⊛ k of the array `values` (sizes[0] × … × sizes[d−1],
/// dimension 0 varying fastest) with several separable kernels k(t) = Π_k k_k(t_k), each given by
/// the DFTs of its even factors (kernels[i][k], sizes[k] values). A separable kernel convolves
/// one dimension at a time: along every line of dimension k, a forward transform, the product
/// with the factor's spectrum and an inverse transform. The forward transforms along dimension 0
/// are those of `values` for every kernel: each is made once.
std::vector<std::vector<double>> convolve_with_separable_kernels(
    const std::vector<double>& values, const std::vector<Index>& sizes,
    const std::vector<std::vector<Vector>>& kernels, FftPlans& fft);

/// A length at least `minimum` whose only prime factors are 2, 3 and 5 (kissfft has butterflies
/// for them; other factors take its slower generic one).
Index fft_friendly_size(Index minimum);

}  // namespace cdens

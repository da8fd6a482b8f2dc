#pragma once
// Circular convolution with a separable, even kernel by FFT (FFTW's real-to-complex transforms),
// for the binned path of the kernel-sum engine.

#include <vector>

#include "cdens/core/types.hpp"

namespace cdens {

/// The DFT of a real even sequence x (x[t] = x[N − t]), which is real: N values.
Vector even_sequence_spectrum(const Vector& sequence);

/// The circular convolutions values ⊛ k of the array `values` (sizes[0] × … × sizes[d−1],
/// dimension 0 varying fastest) with several separable kernels k(t) = Π_k k_k(t_k), each given by
/// the DFTs of its even factors (kernels[i][k], sizes[k] values): one forward transform, one
/// inverse per kernel.
std::vector<std::vector<double>> convolve_with_separable_kernels(
    const std::vector<double>& values, const std::vector<Index>& sizes,
    const std::vector<std::vector<Vector>>& kernels);

/// A length at least `minimum` whose only prime factors are 2, 3, 5 and 7 (FFTW is fastest there).
Index fft_friendly_size(Index minimum);

}  // namespace cdens

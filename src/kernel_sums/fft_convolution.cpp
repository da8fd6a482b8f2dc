#include "kernel_sums/fft_convolution.hpp"

#include <algorithm>
#include <complex>

namespace cdens {

Index fft_friendly_size(Index minimum) {
  for (Index size = std::max<Index>(minimum, 1);; ++size) {
    Index rest = size;
    for (const Index prime : {2, 3, 5}) {
      while (rest % prime == 0) rest /= prime;
    }
    if (rest == 1) return size;
  }
}

Vector even_sequence_spectrum(const Vector& sequence, FftPlans& fft) {
  const std::vector<double> input(sequence.data(), sequence.data() + sequence.size());
  std::vector<std::complex<double>> spectrum;
  fft.fwd(spectrum, input);  // the full spectrum: N values
  Vector real(sequence.size());
  for (Index i = 0; i < real.size(); ++i) real(i) = spectrum[static_cast<std::size_t>(i)].real();
  return real;
}

std::vector<std::vector<double>> convolve_with_separable_kernels(
    const std::vector<double>& values, const std::vector<Index>& sizes,
    const std::vector<std::vector<Vector>>& kernels, FftPlans& fft) {
  const std::size_t total = values.size();
  std::vector<std::vector<double>> results(kernels.size(), std::vector<double>(total));
  // Dimension 0: its lines are contiguous, and each line's forward transform serves every kernel.
  {
    const auto length = static_cast<std::size_t>(sizes[0]);
    std::vector<double> line(length);
    std::vector<std::complex<double>> spectrum;
    std::vector<std::complex<double>> product(length);
    for (std::size_t start = 0; start < total; start += length) {
      line.assign(values.begin() + static_cast<std::ptrdiff_t>(start),
                  values.begin() + static_cast<std::ptrdiff_t>(start + length));
      fft.fwd(spectrum, line);
      for (std::size_t i = 0; i < kernels.size(); ++i) {
        for (std::size_t f = 0; f < length; ++f) {
          product[f] = spectrum[f] * kernels[i][0](static_cast<Index>(f));
        }
        fft.inv(line, product);  // scaled by 1 / length
        std::copy(line.begin(), line.end(),
                  results[i].begin() + static_cast<std::ptrdiff_t>(start));
      }
    }
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    std::vector<double>& result = results[i];
    std::size_t stride = static_cast<std::size_t>(sizes[0]);  // neighbours along dimension k
    for (std::size_t k = 1; k < sizes.size(); ++k) {
      const auto length = static_cast<std::size_t>(sizes[k]);
      std::vector<double> line(length);
      std::vector<std::complex<double>> spectrum;
      // Every line along dimension k starts at an index whose digit k is 0.
      for (std::size_t start = 0; start < total; ++start) {
        if ((start / stride) % length != 0) continue;
        for (std::size_t t = 0; t < length; ++t) line[t] = result[start + t * stride];
        fft.fwd(spectrum, line);
        for (std::size_t f = 0; f < length; ++f)
          spectrum[f] *= kernels[i][k](static_cast<Index>(f));
        fft.inv(line, spectrum);  // scaled by 1 / length
        for (std::size_t t = 0; t < length; ++t) result[start + t * stride] = line[t];
      }
      stride *= length;
    }
  }
  return results;
}

}  // namespace cdens

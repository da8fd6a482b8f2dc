#include "core/fft_convolution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <memory>
#include <mutex>

#include "cdens/core/error.hpp"

namespace cdens {
namespace {

// FFTW's planner is not thread-safe; executing a plan is.
std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct FftwFree {
  void operator()(void* memory) const { fftw_free(memory); }
};
template <class T>
using FftwArray = std::unique_ptr<T[], FftwFree>;

template <class T>
FftwArray<T> fftw_array(std::size_t count) {
  T* memory = static_cast<T*>(fftw_malloc(sizeof(T) * std::max<std::size_t>(count, 1)));
  if (memory == nullptr)
    throw InvalidArgument("the FFT of the binned kernel sums needs more memory");
  return FftwArray<T>(memory);
}

/// A plan, destroyed under the planner's lock.
struct Plan {
  fftw_plan plan = nullptr;
  ~Plan() {
    if (plan == nullptr) return;
    const std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(plan);
  }
};

}  // namespace

Index fft_friendly_size(Index minimum) {
  for (Index size = std::max<Index>(minimum, 1);; ++size) {
    Index rest = size;
    for (const Index prime : {2, 3, 5, 7}) {
      while (rest % prime == 0) rest /= prime;
    }
    if (rest == 1) return size;
  }
}

Vector even_sequence_spectrum(const Vector& sequence) {
  const Index n = sequence.size();
  auto input = fftw_array<double>(static_cast<std::size_t>(n));
  auto output = fftw_array<fftw_complex>(static_cast<std::size_t>(n / 2 + 1));
  Plan plan;
  {
    const std::lock_guard<std::mutex> lock(planner_mutex());
    plan.plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), input.get(), output.get(), FFTW_ESTIMATE);
  }
  std::copy(sequence.data(), sequence.data() + n, input.get());
  fftw_execute(plan.plan);
  Vector spectrum(n);
  for (Index i = 0; i <= n / 2; ++i) spectrum(i) = output[static_cast<std::size_t>(i)][0];
  for (Index i = n / 2 + 1; i < n; ++i) spectrum(i) = spectrum(n - i);  // X[N − i] = X[i]
  return spectrum;
}

std::vector<std::vector<double>> convolve_with_separable_kernels(
    const std::vector<double>& values, const std::vector<Index>& sizes,
    const std::vector<std::vector<Vector>>& kernels) {
  const int rank = static_cast<int>(sizes.size());
  // FFTW's arrays are row-major (last dimension fastest): its dimensions are ours reversed, and
  // its halved last dimension is our dimension 0.
  std::vector<int> dimensions(sizes.rbegin(), sizes.rend());
  std::size_t total = 1;
  for (const Index size : sizes) total *= static_cast<std::size_t>(size);
  const std::size_t half = static_cast<std::size_t>(sizes[0] / 2 + 1);
  const std::size_t complex_total = total / static_cast<std::size_t>(sizes[0]) * half;
  auto real = fftw_array<double>(total);
  auto transform = fftw_array<fftw_complex>(complex_total);
  auto product = fftw_array<fftw_complex>(complex_total);
  Plan forward;
  Plan backward;
  {
    const std::lock_guard<std::mutex> lock(planner_mutex());
    forward.plan =
        fftw_plan_dft_r2c(rank, dimensions.data(), real.get(), transform.get(), FFTW_ESTIMATE);
    backward.plan =
        fftw_plan_dft_c2r(rank, dimensions.data(), product.get(), real.get(), FFTW_ESTIMATE);
  }
  std::copy(values.begin(), values.end(), real.get());
  fftw_execute(forward.plan);
  // The transforms are unnormalised: the product is divided by the size once.
  const double normalisation = 1.0 / static_cast<double>(total);
  std::vector<std::vector<double>> results;
  for (const auto& spectra : kernels) {
    std::size_t position = 0;
    std::vector<Index> index(sizes.size(), 0);
    for (std::size_t c = 0; c < complex_total; c += half) {
      double factor = normalisation;
      for (std::size_t k = 1; k < sizes.size(); ++k) factor *= spectra[k](index[k]);
      for (std::size_t i = 0; i < half; ++i, ++position) {
        const double scale = factor * spectra[0](static_cast<Index>(i));
        product[position][0] = transform[position][0] * scale;
        product[position][1] = transform[position][1] * scale;
      }
      for (std::size_t k = 1; k < sizes.size(); ++k) {  // next index, dimension 1 fastest
        if (++index[k] < sizes[k]) break;
        index[k] = 0;
      }
    }
    fftw_execute(backward.plan);  // destroys `product`, which is rewritten for the next kernel
    results.emplace_back(real.get(), real.get() + total);
  }
  return results;
}

}  // namespace cdens

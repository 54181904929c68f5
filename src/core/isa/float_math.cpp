#include "core/isa/float_math.hpp"

namespace tlaloc::detail {

bool cpu_has_avx512() {
#if defined(__x86_64__) && defined(TLALOC_HAVE_AVX512_KERNELS)
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return has;
#else
  return false;
#endif
}

void float_math(FloatFn fn, const float* x, float* y, std::int64_t n) {
#if defined(TLALOC_HAVE_AVX512_KERNELS)
  if (cpu_has_avx512()) return float_math_avx512(fn, x, y, n);
#endif
  float_math_base(fn, x, y, n);
}

}  // namespace tlaloc::detail

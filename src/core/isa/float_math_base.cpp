// Built with the library's -march (TLALOC_ARCH, x86-64-v3 by default: AVX2 + FMA).
#define TLALOC_FLOAT_MATH_NAME float_math_base
#include "core/isa/float_math.inc"

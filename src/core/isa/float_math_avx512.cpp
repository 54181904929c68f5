// Built with -march=x86-64-v4 (CMakeLists.txt); only called after a CPU check.
#define TLALOC_FLOAT_MATH_NAME float_math_avx512
#include "core/isa/float_math.inc"

/* The PJRT ABI declaration must compile as C11 (Tlaloc's CPU plugin and a C
 * runtime include it); its layout checks run here in C as well as in C++. */
#include "runtime/pjrt/pjrt_abi.h"

const size_t tlaloc_pjrt_abi_table_size = TLP_API_SIZE;

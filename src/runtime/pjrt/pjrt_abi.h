/* Tlaloc's own declaration of the PJRT C ABI (the interface of PJRT device
 * plugins such as the CUDA plugin in jax-cuda13-pjrt), written from the published
 * layout. docs/PJRT.md: which version it follows and how versions stay compatible.
 *
 * Plain C11, for Tlaloc's C++ runtime, its CPU plugin and a C runtime alike. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_H
#define TLALOC_RUNTIME_PJRT_ABI_H

#include "runtime/pjrt/pjrt_abi_base.h"
#include "runtime/pjrt/pjrt_abi_buffer.h"
#include "runtime/pjrt/pjrt_abi_client.h"
#include "runtime/pjrt/pjrt_abi_executable.h"
#include "runtime/pjrt/pjrt_abi_ffi.h"
#include "runtime/pjrt/pjrt_abi_layout.h"
#include "runtime/pjrt/pjrt_abi_table.h"

#endif /* TLALOC_RUNTIME_PJRT_ABI_H */

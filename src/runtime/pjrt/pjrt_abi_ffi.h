/* Tlaloc's declaration of the PJRT C ABI, the FFI extension (PJRT_FFI_Extension,
 * version 2): how a framework registers XLA FFI handlers (include/tlaloc/xla_ffi.h)
 * with a plugin as custom_call targets. A plugin that has it links a node of type
 * TLP_EXTENSION_FFI into its table's extension_start chain.
 * Include "runtime/pjrt/pjrt_abi.h", not the parts. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_FFI_H
#define TLALOC_RUNTIME_PJRT_ABI_FFI_H

#include "runtime/pjrt/pjrt_abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

#define TLP_EXTENSION_FFI 5 /* PJRT_Extension_Type_FFI */

typedef struct tlp_ffi_type_id_register_args { /* PJRT_FFI_TypeID_Register_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const char* type_name;
  size_t type_name_size;
  int64_t type_id; /* in: 0 (assign one) or the id expected; out: the id */
} tlp_ffi_type_id_register_args;
#define TLP_FFI_TYPE_ID_REGISTER_ARGS_SIZE TLP_FILLED_SIZE(tlp_ffi_type_id_register_args, type_id)
typedef tlp_error* tlp_ffi_type_id_register_fn(tlp_ffi_type_id_register_args* args);

typedef struct tlp_ffi_user_data { /* PJRT_FFI_UserData */
  int64_t type_id;
  void* data;
  void (*deleter)(void* data); /* may be NULL */
} tlp_ffi_user_data;

typedef struct tlp_ffi_user_data_add_args { /* PJRT_FFI_UserData_Add_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_execute_context* context;
  tlp_ffi_user_data user_data;
} tlp_ffi_user_data_add_args;
typedef tlp_error* tlp_ffi_user_data_add_fn(tlp_ffi_user_data_add_args* args);

/* Note: no extension_start in this one, as in PJRT's own layout. */
typedef struct tlp_ffi_register_handler_args { /* PJRT_FFI_Register_Handler_Args */
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  void* handler;             /* a tlaloc_ffi_handler* (XLA_FFI_Handler*) */
  const char* platform_name; /* "cpu"/"Host" for a CPU plugin, "CUDA" for XLA's GPU one */
  size_t platform_name_size;
  uint32_t traits; /* PJRT_FFI_Handler_TraitsBits */
} tlp_ffi_register_handler_args;
#define TLP_FFI_REGISTER_HANDLER_ARGS_SIZE TLP_FILLED_SIZE(tlp_ffi_register_handler_args, traits)
typedef tlp_error* tlp_ffi_register_handler_fn(tlp_ffi_register_handler_args* args);

typedef struct tlp_ffi_extension { /* PJRT_FFI_Extension */
  tlp_extension base;
  tlp_ffi_type_id_register_fn* type_id_register;
  tlp_ffi_user_data_add_fn* user_data_add;
  tlp_ffi_register_handler_fn* register_handler; /* since version 2 */
} tlp_ffi_extension;
#define TLP_FFI_EXTENSION_SIZE TLP_FILLED_SIZE(tlp_ffi_extension, register_handler)

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_FFI_H */

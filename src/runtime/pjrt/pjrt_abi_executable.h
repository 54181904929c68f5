/* Tlaloc's declaration of the PJRT C ABI, part 4: programs, compilation,
 * executables, execution and executable serialization.
 * Include "runtime/pjrt/pjrt_abi.h", not the parts. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_EXECUTABLE_H
#define TLALOC_RUNTIME_PJRT_ABI_EXECUTABLE_H

#include "runtime/pjrt/pjrt_abi_base.h"
#include "runtime/pjrt/pjrt_abi_buffer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

/* ---- Compilation ------------------------------------------------------------------ */

/* Program text plus its format. Tlaloc sends format "mlir" with StableHLO text (MLIR
 * bytecode is accepted too); "hlo" would be a serialized HloModuleProto. */
typedef struct tlp_program { /* PJRT_Program */
  size_t struct_size;
  tlp_extension* extension_start;
  char* code; /* owned by the caller; not NUL-terminated */
  size_t code_size;
  const char* format;
  size_t format_size;
} tlp_program;
#define TLP_PROGRAM_SIZE TLP_FILLED_SIZE(tlp_program, format_size)

/* compile_options holds a serialized xla.CompileOptionsProto (docs/PJRT.md shows
 * the bytes for one replica and one partition). */
typedef struct tlp_client_compile_args { /* PJRT_Client_Compile_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  const tlp_program* program; /* needed only during the call */
  const char* compile_options;
  size_t compile_options_size;
  tlp_loaded_executable* executable; /* out: caller destroys it */
} tlp_client_compile_args;
#define TLP_CLIENT_COMPILE_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_compile_args, executable)
typedef tlp_error* tlp_client_compile_fn(tlp_client_compile_args* args);

/* ---- Executables (compiled programs) ----------------------------------------------- */

typedef struct tlp_executable_args { /* PJRT_Executable_Destroy_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
} tlp_executable_args;
#define TLP_EXECUTABLE_ARGS_SIZE TLP_FILLED_SIZE(tlp_executable_args, executable)
typedef tlp_error* tlp_executable_destroy_fn(tlp_executable_args* args); /* may be NULL */

typedef struct tlp_executable_name_args { /* PJRT_Executable_Name_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
  const char* name; /* out: lives as long as the executable; not NUL-terminated */
  size_t name_size; /* out */
} tlp_executable_name_args;
#define TLP_EXECUTABLE_NAME_ARGS_SIZE TLP_FILLED_SIZE(tlp_executable_name_args, name_size)
typedef tlp_error* tlp_executable_name_fn(tlp_executable_name_args* args);

/* A count: replicas, partitions, or outputs per device. */
typedef struct tlp_executable_count_args { /* PJRT_Executable_Num{Replicas,Partitions,Outputs}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
  size_t count; /* out */
} tlp_executable_count_args;
#define TLP_EXECUTABLE_COUNT_ARGS_SIZE TLP_FILLED_SIZE(tlp_executable_count_args, count)
typedef tlp_error* tlp_executable_num_replicas_fn(tlp_executable_count_args* args);
typedef tlp_error* tlp_executable_num_partitions_fn(tlp_executable_count_args* args);
typedef tlp_error* tlp_executable_num_outputs_fn(tlp_executable_count_args* args);

typedef struct tlp_executable_output_types_args { /* PJRT_Executable_OutputElementTypes_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
  tlp_element_type* output_types; /* out: one per output */
  size_t num_output_types;        /* out */
} tlp_executable_output_types_args;
#define TLP_EXECUTABLE_OUTPUT_TYPES_ARGS_SIZE \
  TLP_FILLED_SIZE(tlp_executable_output_types_args, num_output_types)
typedef tlp_error* tlp_executable_output_types_fn(tlp_executable_output_types_args* args);

/* All outputs' dimensions concatenated; dim_sizes[i] is the rank of output i. */
typedef struct tlp_executable_output_dims_args { /* PJRT_Executable_OutputDimensions_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
  size_t num_outputs;      /* out */
  const int64_t* dims;     /* out */
  const size_t* dim_sizes; /* out */
} tlp_executable_output_dims_args;
#define TLP_EXECUTABLE_OUTPUT_DIMS_ARGS_SIZE TLP_FILLED_SIZE(tlp_executable_output_dims_args, dim_sizes)
typedef tlp_error* tlp_executable_output_dims_fn(tlp_executable_output_dims_args* args);

typedef struct tlp_executable_fingerprint_args { /* PJRT_Executable_Fingerprint_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_executable* executable;
  const char* fingerprint; /* out: same inputs and compiler give the same value */
  size_t fingerprint_size; /* out */
} tlp_executable_fingerprint_args;
#define TLP_EXECUTABLE_FINGERPRINT_ARGS_SIZE \
  TLP_FILLED_SIZE(tlp_executable_fingerprint_args, fingerprint_size)
typedef tlp_error* tlp_executable_fingerprint_fn(tlp_executable_fingerprint_args* args);

/* The bytes live in `serialized` until the caller passes it to `deleter` (once). They
 * load again only into the same platform and plugin version. */
typedef struct tlp_executable_serialize_args { /* PJRT_Executable_Serialize_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const tlp_executable* executable;
  const char* bytes;                                      /* out */
  size_t bytes_size;                                      /* out */
  tlp_serialized_executable* serialized;                  /* out */
  void (*deleter)(tlp_serialized_executable* serialized); /* out */
} tlp_executable_serialize_args;
#define TLP_EXECUTABLE_SERIALIZE_ARGS_SIZE TLP_FILLED_SIZE(tlp_executable_serialize_args, deleter)
typedef tlp_error* tlp_executable_serialize_fn(tlp_executable_serialize_args* args);

typedef struct tlp_deserialize_and_load_args { /* PJRT_Executable_DeserializeAndLoad_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  const char* bytes;
  size_t bytes_size;
  tlp_loaded_executable* loaded; /* out: caller destroys it */
  const char* compile_options;   /* NULL: the options stored with the executable (since 0.71) */
  size_t compile_options_size;
} tlp_deserialize_and_load_args;
#define TLP_DESERIALIZE_AND_LOAD_ARGS_SIZE \
  TLP_FILLED_SIZE(tlp_deserialize_and_load_args, compile_options_size)
typedef tlp_error* tlp_deserialize_and_load_fn(tlp_deserialize_and_load_args* args);

/* ---- Loaded executables (bound to devices of a client) -------------------------------- */

/* One struct serves destroy and delete, like buffers. */
typedef struct tlp_loaded_args { /* PJRT_LoadedExecutable_{Destroy,Delete}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_loaded_executable* executable;
} tlp_loaded_args;
#define TLP_LOADED_ARGS_SIZE TLP_FILLED_SIZE(tlp_loaded_args, executable)
typedef tlp_error* tlp_loaded_destroy_fn(tlp_loaded_args* args);
typedef tlp_error* tlp_loaded_delete_fn(tlp_loaded_args* args);

typedef struct tlp_loaded_is_deleted_args { /* PJRT_LoadedExecutable_IsDeleted_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_loaded_executable* executable;
  bool is_deleted; /* out */
} tlp_loaded_is_deleted_args;
#define TLP_LOADED_IS_DELETED_ARGS_SIZE TLP_FILLED_SIZE(tlp_loaded_is_deleted_args, is_deleted)
typedef tlp_error* tlp_loaded_is_deleted_fn(tlp_loaded_is_deleted_args* args);

typedef struct tlp_loaded_get_executable_args { /* PJRT_LoadedExecutable_GetExecutable_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_loaded_executable* loaded;
  tlp_executable* executable; /* out: caller destroys it with executable_destroy */
} tlp_loaded_get_executable_args;
#define TLP_LOADED_GET_EXECUTABLE_ARGS_SIZE TLP_FILLED_SIZE(tlp_loaded_get_executable_args, executable)
typedef tlp_error* tlp_loaded_get_executable_fn(tlp_loaded_get_executable_args* args);

typedef struct tlp_loaded_devices_args { /* PJRT_LoadedExecutable_AddressableDevices_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_loaded_executable* executable;
  tlp_device* const* devices; /* out: the devices it runs on */
  size_t num_devices;         /* out */
} tlp_loaded_devices_args;
#define TLP_LOADED_DEVICES_ARGS_SIZE TLP_FILLED_SIZE(tlp_loaded_devices_args, num_devices)
typedef tlp_error* tlp_loaded_addressable_devices_fn(tlp_loaded_devices_args* args);

/* ---- Execution ---------------------------------------------------------------------- */

typedef struct tlp_send_callback_info tlp_send_callback_info; /* host callbacks: unused */
typedef struct tlp_recv_callback_info tlp_recv_callback_info;
typedef struct tlp_multi_slice_config tlp_multi_slice_config;

/* Options of one launch (PJRT_ExecuteOptions). Zero everything but struct_size for
 * a plain run. Fields after `context` arrived in later minors (0.76, 0.78, 0.97, ...). */
typedef struct tlp_execute_options {
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_send_callback_info** send_callbacks;
  tlp_recv_callback_info** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t* non_donatable_input_indices; /* inputs the runtime must not reuse */
  size_t num_non_donatable_input_indices;
  tlp_execute_context* context;
  const char* call_location; /* NUL-terminated caller location, for messages */
  size_t num_tasks;
  int* task_ids;
  int64_t* incarnation_ids;
  tlp_multi_slice_config* multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
} tlp_execute_options;
#define TLP_EXECUTE_OPTIONS_SIZE \
  TLP_FILLED_SIZE(tlp_execute_options, use_major_to_minor_data_layout_for_callbacks)

/* argument_lists[d][i] is input i on device d; output_lists[d] points at room for
 * num_outputs buffers, which the plugin fills and the caller later destroys. */
typedef struct tlp_execute_args { /* PJRT_LoadedExecutable_Execute_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_loaded_executable* executable;
  tlp_execute_options* options;
  tlp_buffer* const* const* argument_lists;
  size_t num_devices;
  size_t num_args;
  tlp_buffer** const* output_lists;   /* in: caller's arrays; out: filled */
  tlp_event** device_complete_events; /* NULL, or room for num_devices events */
  tlp_device* execute_device;         /* NULL: the devices chosen at compile time */
} tlp_execute_args;
#define TLP_EXECUTE_ARGS_SIZE TLP_FILLED_SIZE(tlp_execute_args, execute_device)
typedef tlp_error* tlp_loaded_execute_fn(tlp_execute_args* args);

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_EXECUTABLE_H */

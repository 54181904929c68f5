/* Tlaloc's declaration of the PJRT C ABI, part 1: versions, conventions, handles,
 * errors, named values, plugin set-up and events.
 *
 * PJRT is the C interface between a framework (Tlaloc, JAX, ...) and a device
 * plugin (a shared library exporting GetPjrtApi). Only the binary layout is
 * shared with other implementations: the names here are Tlaloc's (prefix tlp_),
 * each slot and struct notes the PJRT name it corresponds to. docs/PJRT.md says
 * which version is followed and how the compatibility rules work.
 *
 * Plain C (C11) so that Tlaloc's CPU plugin and a C runtime can include it.
 * Include "runtime/pjrt/pjrt_abi.h", not the parts. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_BASE_H
#define TLALOC_RUNTIME_PJRT_ABI_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

/* ---- Versions ------------------------------------------------------------ */

/* The PJRT API version this declaration follows. Major changes break the ABI;
 * minor ones only append (struct fields, table slots), so a plugin of any minor
 * with the same major can be driven through the slots and fields both sides know. */
#define TLP_API_MAJOR 0
#define TLP_API_MINOR 110

/* The oldest minor whose table matches ours slot for slot: 0.56 put a new slot in
 * the middle of the table and 0.57 moved it to the end. */
#define TLP_API_OLDEST_MINOR 57

/* ---- The args-struct convention ------------------------------------------ */

/* Every argument struct starts with struct_size and extension_start. The caller
 * writes struct_size = bytes up to the end of the last field it knows (no tail
 * padding); the callee reads only fields that fit. extension_start links optional
 * extension structs; Tlaloc passes NULL (a plugin offers its extensions in the API
 * table's extension_start: pjrt_abi_ffi.h). TLP_FILLED_SIZE computes struct_size
 * (the sizeof of a pointer field is meant: hence the NOLINT). */
#define TLP_FILLED_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field)) /* NOLINT(bugprone-sizeof-expression) */

/* Extension chain node (PJRT_Extension_Base). `type` names the extension kind. */
typedef struct tlp_extension {
  size_t struct_size;
  int type;
  struct tlp_extension* next;
} tlp_extension;
#define TLP_EXTENSION_SIZE TLP_FILLED_SIZE(tlp_extension, next)

/* ---- Opaque handles (owned by the plugin) -------------------------------- */

typedef struct tlp_error tlp_error;                           /* PJRT_Error */
typedef struct tlp_event tlp_event;                           /* PJRT_Event */
typedef struct tlp_client tlp_client;                         /* PJRT_Client */
typedef struct tlp_device tlp_device;                         /* PJRT_Device */
typedef struct tlp_device_description tlp_device_description; /* PJRT_DeviceDescription */
typedef struct tlp_memory tlp_memory;                         /* PJRT_Memory */
typedef struct tlp_executable tlp_executable; /* PJRT_Executable: compiled, not bound to devices */
typedef struct tlp_loaded_executable tlp_loaded_executable;         /* PJRT_LoadedExecutable */
typedef struct tlp_buffer tlp_buffer;                               /* PJRT_Buffer: an array on a device */
typedef struct tlp_execute_context tlp_execute_context;             /* PJRT_ExecuteContext */
typedef struct tlp_serialized_executable tlp_serialized_executable; /* owns serialized bytes */

/* Entry points Tlaloc does not call keep their slot with this generic type; like
 * every typed entry point but two, they take one args pointer and return an error. */
typedef tlp_error* tlp_untyped_fn(void* args);

/* ---- Version record (PJRT_Api_Version), embedded in the API table -------- */

typedef struct tlp_api_version {
  size_t struct_size;
  tlp_extension* extension_start;
  int major_version; /* the PJRT_API_MAJOR the plugin was built with */
  int minor_version; /* the PJRT_API_MINOR the plugin was built with */
} tlp_api_version;
#define TLP_API_VERSION_SIZE TLP_FILLED_SIZE(tlp_api_version, minor_version)

/* ---- Errors -------------------------------------------------------------- */

/* A NULL tlp_error* means success; otherwise the caller owns the error and frees it
 * with error_destroy. Codes follow absl::StatusCode (PJRT_Error_Code). */
typedef enum tlp_error_code {
  TLP_OK = 0,
  TLP_CANCELLED = 1,
  TLP_UNKNOWN = 2,
  TLP_INVALID_ARGUMENT = 3,
  TLP_DEADLINE_EXCEEDED = 4,
  TLP_NOT_FOUND = 5,
  TLP_ALREADY_EXISTS = 6,
  TLP_PERMISSION_DENIED = 7,
  TLP_RESOURCE_EXHAUSTED = 8,
  TLP_FAILED_PRECONDITION = 9,
  TLP_ABORTED = 10,
  TLP_OUT_OF_RANGE = 11,
  TLP_UNIMPLEMENTED = 12,
  TLP_INTERNAL = 13,
  TLP_UNAVAILABLE = 14,
  TLP_DATA_LOSS = 15,
  TLP_UNAUTHENTICATED = 16
} tlp_error_code;

typedef struct tlp_error_destroy_args { /* PJRT_Error_Destroy_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_error* error; /* may be NULL */
} tlp_error_destroy_args;
#define TLP_ERROR_DESTROY_ARGS_SIZE TLP_FILLED_SIZE(tlp_error_destroy_args, error)
typedef void tlp_error_destroy_fn(tlp_error_destroy_args* args);

typedef struct tlp_error_message_args { /* PJRT_Error_Message_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const tlp_error* error;
  const char* message; /* out: lives as long as the error; not NUL-terminated */
  size_t message_size; /* out */
} tlp_error_message_args;
#define TLP_ERROR_MESSAGE_ARGS_SIZE TLP_FILLED_SIZE(tlp_error_message_args, message_size)
typedef void tlp_error_message_fn(tlp_error_message_args* args);

typedef struct tlp_error_get_code_args { /* PJRT_Error_GetCode_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const tlp_error* error;
  tlp_error_code code; /* out */
} tlp_error_get_code_args;
#define TLP_ERROR_GET_CODE_ARGS_SIZE TLP_FILLED_SIZE(tlp_error_get_code_args, code)
typedef tlp_error* tlp_error_get_code_fn(tlp_error_get_code_args* args);

/* ---- Named values: key/value options and attributes (PJRT_NamedValue) ---- */

typedef enum tlp_value_kind {
  TLP_VALUE_STRING = 0,     /* string_value, value_size = length */
  TLP_VALUE_INT64 = 1,      /* int64_value, value_size = 1 */
  TLP_VALUE_INT64_LIST = 2, /* int64_list_value, value_size = count */
  TLP_VALUE_FLOAT = 3,      /* float_value, value_size = 1 */
  TLP_VALUE_BOOL = 4        /* bool_value, value_size = 1 */
} tlp_value_kind;

typedef struct tlp_named_value {
  size_t struct_size;
  tlp_extension* extension_start;
  const char* name; /* not NUL-terminated */
  size_t name_size;
  tlp_value_kind kind;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_list_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;
} tlp_named_value;
#define TLP_NAMED_VALUE_SIZE TLP_FILLED_SIZE(tlp_named_value, value_size)

/* ---- Plugin set-up -------------------------------------------------------- */

typedef struct tlp_plugin_initialize_args { /* PJRT_Plugin_Initialize_Args */
  size_t struct_size;
  tlp_extension* extension_start;
} tlp_plugin_initialize_args;
#define TLP_PLUGIN_INITIALIZE_ARGS_SIZE TLP_FILLED_SIZE(tlp_plugin_initialize_args, extension_start)
/* Called once, before any other entry point but the error ones. */
typedef tlp_error* tlp_plugin_initialize_fn(tlp_plugin_initialize_args* args);

typedef struct tlp_plugin_attributes_args { /* PJRT_Plugin_Attributes_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const tlp_named_value* attributes; /* out: live as long as the process */
  size_t num_attributes;             /* out */
} tlp_plugin_attributes_args;
#define TLP_PLUGIN_ATTRIBUTES_ARGS_SIZE TLP_FILLED_SIZE(tlp_plugin_attributes_args, num_attributes)
/* Keys such as xla_version, stablehlo_current_version, stablehlo_minimum_version. */
typedef tlp_error* tlp_plugin_attributes_fn(tlp_plugin_attributes_args* args);

/* ---- Events: completion of asynchronous work ------------------------------ */

/* One struct serves destroy, error and await (each names just the event). */
typedef struct tlp_event_args { /* PJRT_Event_{Destroy,Error,Await}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_event* event;
} tlp_event_args;
#define TLP_EVENT_ARGS_SIZE TLP_FILLED_SIZE(tlp_event_args, event)
typedef tlp_error* tlp_event_destroy_fn(tlp_event_args* args); /* event may be NULL */
typedef tlp_error* tlp_event_error_fn(tlp_event_args* args);   /* the event's outcome, once ready */
typedef tlp_error* tlp_event_await_fn(tlp_event_args* args);   /* blocks; returns the outcome */

typedef struct tlp_event_is_ready_args { /* PJRT_Event_IsReady_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_event* event;
  bool is_ready; /* out: done, successfully or not */
} tlp_event_is_ready_args;
#define TLP_EVENT_IS_READY_ARGS_SIZE TLP_FILLED_SIZE(tlp_event_is_ready_args, is_ready)
typedef tlp_error* tlp_event_is_ready_fn(tlp_event_is_ready_args* args);

/* The callback owns `error` (NULL on success) and must destroy it. */
typedef void (*tlp_event_callback)(tlp_error* error, void* user_arg);
typedef struct tlp_event_on_ready_args { /* PJRT_Event_OnReady_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_event* event;
  tlp_event_callback callback;
  void* user_arg;
} tlp_event_on_ready_args;
#define TLP_EVENT_ON_READY_ARGS_SIZE TLP_FILLED_SIZE(tlp_event_on_ready_args, user_arg)
typedef tlp_error* tlp_event_on_ready_fn(tlp_event_on_ready_args* args);

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_BASE_H */

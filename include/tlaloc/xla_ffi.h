/* Tlaloc's declaration of XLA's FFI C ABI (docs/CUSTOM_KERNELS.md, "XLA FFI
 * handlers"): the binary interface through which a runtime calls a custom_call's
 * handler. A handler compiled against XLA's own header (xla/ffi/api/c_api.h, API
 * 0.1) and one written against this header are the same function to Tlaloc:
 * only the layout is shared, the names here are Tlaloc's (prefix tlaloc_ffi_), and
 * each notes the XLA name it corresponds to.
 *
 *   tlaloc_ffi_error* twice(tlaloc_ffi_call_frame* frame) {
 *     const tlaloc_ffi_buffer* x = (const tlaloc_ffi_buffer*)frame->args.args[0];
 *     tlaloc_ffi_buffer* y = (tlaloc_ffi_buffer*)frame->rets.rets[0];
 *     ... y->data[i] = 2 * x->data[i] ...
 *     return NULL;
 *   }
 *
 * Register it with tl::kernel(name).ffi(twice), or with a PJRT plugin's FFI
 * extension (Tlaloc's CPU plugin has one). Plain C (C11). */
#ifndef TLALOC_XLA_FFI_H
#define TLALOC_XLA_FFI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

/* The XLA FFI API version this declaration follows (XLA_FFI_API_MAJOR/MINOR). */
#define TLALOC_FFI_API_MAJOR 0
#define TLALOC_FFI_API_MINOR 1

/* Every struct starts with struct_size (bytes up to its last field, no tail
 * padding), so either side can tell how much of it the other knows. */
#define TLALOC_FFI_FILLED_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field)) /* NOLINT(bugprone-sizeof-expression) */

typedef struct tlaloc_ffi_extension { /* XLA_FFI_Extension_Base */
  size_t struct_size;
  int type; /* XLA_FFI_Extension_Type */
  struct tlaloc_ffi_extension* next;
} tlaloc_ffi_extension;

typedef struct tlaloc_ffi_api_version { /* XLA_FFI_Api_Version */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  int major_version;
  int minor_version;
} tlaloc_ffi_api_version;

/* ---- Errors: NULL is success; a handler's error is owned and freed by the runtime */

typedef struct tlaloc_ffi_error tlaloc_ffi_error; /* XLA_FFI_Error */

typedef enum tlaloc_ffi_error_code { /* XLA_FFI_Error_Code, absl::StatusCode's values */
                                     TLALOC_FFI_OK = 0,
                                     TLALOC_FFI_CANCELLED = 1,
                                     TLALOC_FFI_UNKNOWN = 2,
                                     TLALOC_FFI_INVALID_ARGUMENT = 3,
                                     TLALOC_FFI_DEADLINE_EXCEEDED = 4,
                                     TLALOC_FFI_NOT_FOUND = 5,
                                     TLALOC_FFI_ALREADY_EXISTS = 6,
                                     TLALOC_FFI_PERMISSION_DENIED = 7,
                                     TLALOC_FFI_RESOURCE_EXHAUSTED = 8,
                                     TLALOC_FFI_FAILED_PRECONDITION = 9,
                                     TLALOC_FFI_ABORTED = 10,
                                     TLALOC_FFI_OUT_OF_RANGE = 11,
                                     TLALOC_FFI_UNIMPLEMENTED = 12,
                                     TLALOC_FFI_INTERNAL = 13,
                                     TLALOC_FFI_UNAVAILABLE = 14,
                                     TLALOC_FFI_DATA_LOSS = 15,
                                     TLALOC_FFI_UNAUTHENTICATED = 16
} tlaloc_ffi_error_code;

typedef struct tlaloc_ffi_error_create_args { /* XLA_FFI_Error_Create_Args */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  const char* message; /* NUL-terminated; copied */
  tlaloc_ffi_error_code errc;
} tlaloc_ffi_error_create_args;
typedef tlaloc_ffi_error* tlaloc_ffi_error_create_fn(tlaloc_ffi_error_create_args* args);

typedef struct tlaloc_ffi_error_get_message_args { /* XLA_FFI_Error_GetMessage_Args */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_error* error;
  const char* message; /* out: lives as long as the error */
} tlaloc_ffi_error_get_message_args;
typedef void tlaloc_ffi_error_get_message_fn(tlaloc_ffi_error_get_message_args* args);

typedef struct tlaloc_ffi_error_destroy_args { /* XLA_FFI_Error_Destroy_Args */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_error* error;
} tlaloc_ffi_error_destroy_args;
typedef void tlaloc_ffi_error_destroy_fn(tlaloc_ffi_error_destroy_args* args);

/* ---- Element types: xla::PrimitiveType's values (XLA_FFI_DataType) ------------- */

typedef enum tlaloc_ffi_data_type {
  TLALOC_FFI_INVALID = 0,
  TLALOC_FFI_PRED = 1,
  TLALOC_FFI_S8 = 2,
  TLALOC_FFI_S16 = 3,
  TLALOC_FFI_S32 = 4,
  TLALOC_FFI_S64 = 5,
  TLALOC_FFI_U8 = 6,
  TLALOC_FFI_U16 = 7,
  TLALOC_FFI_U32 = 8,
  TLALOC_FFI_U64 = 9,
  TLALOC_FFI_F16 = 10,
  TLALOC_FFI_F32 = 11,
  TLALOC_FFI_F64 = 12,
  TLALOC_FFI_C64 = 15,
  TLALOC_FFI_BF16 = 16,
  TLALOC_FFI_TOKEN = 17,
  TLALOC_FFI_C128 = 18
} tlaloc_ffi_data_type;

/* ---- Operands, results and attributes ----------------------------------------- */

typedef struct tlaloc_ffi_buffer { /* XLA_FFI_Buffer: dense, row-major */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_data_type dtype;
  void* data;
  int64_t rank;
  int64_t* dims; /* rank of them */
} tlaloc_ffi_buffer;

typedef enum tlaloc_ffi_arg_type { TLALOC_FFI_ARG_BUFFER = 1 } tlaloc_ffi_arg_type; /* XLA_FFI_ArgType */
typedef enum tlaloc_ffi_ret_type { TLALOC_FFI_RET_BUFFER = 1 } tlaloc_ffi_ret_type; /* XLA_FFI_RetType */
typedef enum tlaloc_ffi_attr_type {                                                 /* XLA_FFI_AttrType */
                                    TLALOC_FFI_ATTR_ARRAY = 1,
                                    TLALOC_FFI_ATTR_DICTIONARY = 2,
                                    TLALOC_FFI_ATTR_SCALAR = 3,
                                    TLALOC_FFI_ATTR_STRING = 4
} tlaloc_ffi_attr_type;

typedef struct tlaloc_ffi_byte_span { /* XLA_FFI_ByteSpan: not NUL-terminated */
  const char* ptr;
  size_t len;
} tlaloc_ffi_byte_span;

typedef struct tlaloc_ffi_scalar { /* XLA_FFI_Scalar: a SCALAR attribute */
  tlaloc_ffi_data_type dtype;
  void* value;
} tlaloc_ffi_scalar;

typedef struct tlaloc_ffi_array { /* XLA_FFI_Array: an ARRAY attribute */
  tlaloc_ffi_data_type dtype;
  size_t size;
  void* data;
} tlaloc_ffi_array;

typedef struct tlaloc_ffi_args { /* XLA_FFI_Args */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  int64_t size;
  tlaloc_ffi_arg_type* types;
  void** args; /* tlaloc_ffi_buffer* each */
} tlaloc_ffi_args;

typedef struct tlaloc_ffi_rets { /* XLA_FFI_Rets */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  int64_t size;
  tlaloc_ffi_ret_type* types;
  void** rets; /* tlaloc_ffi_buffer* each, allocated with the declared type */
} tlaloc_ffi_rets;

/* Sorted by name, so that a handler may look one up by binary search. A STRING
 * attribute is a tlaloc_ffi_byte_span*, a SCALAR a tlaloc_ffi_scalar*. */
typedef struct tlaloc_ffi_attrs { /* XLA_FFI_Attrs */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  int64_t size;
  tlaloc_ffi_attr_type* types;
  tlaloc_ffi_byte_span** names;
  void** attrs;
} tlaloc_ffi_attrs;

/* ---- The call ------------------------------------------------------------------ */

typedef struct tlaloc_ffi_execution_context tlaloc_ffi_execution_context; /* XLA_FFI_ExecutionContext */
typedef struct tlaloc_ffi_future tlaloc_ffi_future;                       /* XLA_FFI_Future */
typedef struct tlaloc_ffi_api tlaloc_ffi_api;

typedef enum tlaloc_ffi_execution_stage { /* XLA_FFI_ExecutionStage: Tlaloc calls EXECUTE only */
                                          TLALOC_FFI_INSTANTIATE = 0,
                                          TLALOC_FFI_PREPARE = 1,
                                          TLALOC_FFI_INITIALIZE = 2,
                                          TLALOC_FFI_EXECUTE = 3
} tlaloc_ffi_execution_stage;

typedef struct tlaloc_ffi_call_frame { /* XLA_FFI_CallFrame */
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  const tlaloc_ffi_api* api;
  tlaloc_ffi_execution_context* ctx;
  tlaloc_ffi_execution_stage stage;
  tlaloc_ffi_args args;
  tlaloc_ffi_rets rets;
  tlaloc_ffi_attrs attrs;
  tlaloc_ffi_future* future; /* out: Tlaloc refuses a handler that sets it (no asynchronous calls) */
} tlaloc_ffi_call_frame;

/* A handler (XLA_FFI_Handler): NULL on success, else an error made with the api's
 * error_create. */
typedef tlaloc_ffi_error* tlaloc_ffi_handler(tlaloc_ffi_call_frame* frame);

/* Recent XLA asks a handler for its metadata when it is registered: it calls the
 * handler with a frame whose extension_start is a node of this type (nothing else in
 * that frame is meaningful); the handler fills the metadata and returns NULL. Tlaloc
 * never asks; a handler meant for XLA's plugins should answer. */
#define TLALOC_FFI_EXTENSION_METADATA 1 /* XLA_FFI_Extension_Metadata */

typedef struct tlaloc_ffi_metadata { /* XLA_FFI_Metadata */
  size_t struct_size;
  tlaloc_ffi_api_version api_version; /* the handler's: TLALOC_FFI_API_MAJOR and _MINOR */
  uint32_t traits;                    /* XLA_FFI_Handler_Traits; 0 */
} tlaloc_ffi_metadata;

typedef struct tlaloc_ffi_metadata_extension { /* XLA_FFI_Metadata_Extension */
  tlaloc_ffi_extension extension_base;
  tlaloc_ffi_metadata* metadata;
} tlaloc_ffi_metadata_extension;

/* Whether `frame` is XLA's metadata question; if so, answers it. */
static inline int tlaloc_ffi_answer_metadata(tlaloc_ffi_call_frame* frame) {
  tlaloc_ffi_extension* e = frame->extension_start;
  if (e == NULL || e->type != TLALOC_FFI_EXTENSION_METADATA) return 0;
  tlaloc_ffi_metadata* m = ((tlaloc_ffi_metadata_extension*)e)->metadata;
  m->api_version.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_api_version, minor_version);
  m->api_version.extension_start = NULL;
  m->api_version.major_version = TLALOC_FFI_API_MAJOR;
  m->api_version.minor_version = TLALOC_FFI_API_MINOR;
  m->traits = 0;
  return 1;
}

/* ---- The api table a handler is given (XLA_FFI_Api) ------------------------------
 * Tlaloc fills every slot. Entry points a host runtime cannot serve (a device
 * stream, state, futures) answer UNIMPLEMENTED with their XLA name. */

typedef tlaloc_ffi_error* tlaloc_ffi_untyped_fn(void* args);

struct tlaloc_ffi_api {
  size_t struct_size;
  tlaloc_ffi_extension* extension_start;
  tlaloc_ffi_api_version api_version;
  void* internal_api; /* XLA's own; NULL here */
  tlaloc_ffi_error_create_fn* error_create;
  tlaloc_ffi_error_get_message_fn* error_get_message;
  tlaloc_ffi_error_destroy_fn* error_destroy;
  tlaloc_ffi_untyped_fn* handler_register;       /* XLA_FFI_Handler_Register */
  tlaloc_ffi_untyped_fn* stream_get;             /* XLA_FFI_Stream_Get */
  tlaloc_ffi_untyped_fn* type_id_register;       /* XLA_FFI_TypeId_Register */
  tlaloc_ffi_untyped_fn* execution_context_get;  /* XLA_FFI_ExecutionContext_Get */
  tlaloc_ffi_untyped_fn* state_set;              /* XLA_FFI_State_Set */
  tlaloc_ffi_untyped_fn* state_get;              /* XLA_FFI_State_Get */
  tlaloc_ffi_untyped_fn* device_memory_allocate; /* XLA_FFI_DeviceMemory_Allocate */
  tlaloc_ffi_untyped_fn* device_memory_free;     /* XLA_FFI_DeviceMemory_Free */
  tlaloc_ffi_untyped_fn* thread_pool_schedule;   /* XLA_FFI_ThreadPool_Schedule */
  tlaloc_ffi_untyped_fn* future_create;          /* XLA_FFI_Future_Create */
  tlaloc_ffi_untyped_fn* future_set_available;   /* XLA_FFI_Future_SetAvailable */
  tlaloc_ffi_untyped_fn* future_set_error;       /* XLA_FFI_Future_SetError */
};

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_XLA_FFI_H */

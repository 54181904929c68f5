/* Tlaloc's declaration of the PJRT C ABI, part 3: element types, layouts and
 * buffers (arrays living on a device), with the transfers to and from the host.
 * Include "runtime/pjrt/pjrt_abi.h", not the parts. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_BUFFER_H
#define TLALOC_RUNTIME_PJRT_ABI_BUFFER_H

#include "runtime/pjrt/pjrt_abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

/* ---- Element types (PJRT_Buffer_Type; the values are XLA's numbering) ------ */

typedef enum tlp_element_type {
  TLP_TYPE_INVALID = 0,
  TLP_TYPE_PRED = 1, /* bool, one byte */
  TLP_TYPE_S8 = 2,
  TLP_TYPE_S16 = 3,
  TLP_TYPE_S32 = 4,
  TLP_TYPE_S64 = 5,
  TLP_TYPE_U8 = 6,
  TLP_TYPE_U16 = 7,
  TLP_TYPE_U32 = 8,
  TLP_TYPE_U64 = 9,
  TLP_TYPE_F16 = 10,
  TLP_TYPE_F32 = 11,
  TLP_TYPE_F64 = 12,
  TLP_TYPE_BF16 = 13,
  TLP_TYPE_C64 = 14,  /* complex of two f32 */
  TLP_TYPE_C128 = 15, /* complex of two f64 */
  TLP_TYPE_F8E5M2 = 16,
  TLP_TYPE_F8E4M3FN = 17,
  TLP_TYPE_F8E4M3B11FNUZ = 18,
  TLP_TYPE_F8E5M2FNUZ = 19,
  TLP_TYPE_F8E4M3FNUZ = 20,
  TLP_TYPE_S4 = 21,
  TLP_TYPE_U4 = 22,
  TLP_TYPE_TOKEN = 23,
  TLP_TYPE_S2 = 24,
  TLP_TYPE_U2 = 25,
  TLP_TYPE_F8E4M3 = 26,
  TLP_TYPE_F8E3M4 = 27,
  TLP_TYPE_F8E8M0FNU = 28,
  TLP_TYPE_F4E2M1FN = 29,
  TLP_TYPE_S1 = 30,
  TLP_TYPE_U1 = 31
} tlp_element_type;

/* How long the runtime may use the host data handed to buffer_from_host
 * (PJRT_HostBufferSemantics). Tlaloc copies: ONLY_DURING_CALL. */
typedef enum tlp_host_buffer_semantics {
  TLP_HOST_ONLY_DURING_CALL = 0,         /* copied before the call returns */
  TLP_HOST_UNTIL_TRANSFER_COMPLETES = 1, /* kept until done_with_host_buffer fires */
  TLP_HOST_IMMUTABLE_ZERO_COPY = 2,      /* aliased read-only while the buffer lives */
  TLP_HOST_MUTABLE_ZERO_COPY = 3         /* aliased, and the runtime may write it */
} tlp_host_buffer_semantics;

/* ---- Memory layouts (PJRT_Buffer_MemoryLayout) ------------------------------- */

typedef enum tlp_layout_kind { TLP_LAYOUT_TILED = 0, TLP_LAYOUT_STRIDES = 1 } tlp_layout_kind;

typedef struct tlp_layout_tiled {
  size_t struct_size;
  tlp_extension* extension_start;
  const int64_t* minor_to_major; /* logical dimension numbers, fastest varying first */
  size_t minor_to_major_size;
  const int64_t* tile_dims;     /* all tiles' dimensions, concatenated */
  const size_t* tile_dim_sizes; /* rank of each tile */
  size_t num_tiles;
} tlp_layout_tiled;
#define TLP_LAYOUT_TILED_SIZE TLP_FILLED_SIZE(tlp_layout_tiled, num_tiles)

typedef struct tlp_layout_strides {
  size_t struct_size;
  tlp_extension* extension_start;
  const int64_t* byte_strides; /* one per dimension; may be negative */
  size_t num_byte_strides;
} tlp_layout_strides;
#define TLP_LAYOUT_STRIDES_SIZE TLP_FILLED_SIZE(tlp_layout_strides, num_byte_strides)

typedef struct tlp_layout {
  size_t struct_size;
  tlp_extension* extension_start;
  union {
    tlp_layout_tiled tiled;
    tlp_layout_strides strides;
  };
  tlp_layout_kind kind;
} tlp_layout;
#define TLP_LAYOUT_SIZE TLP_FILLED_SIZE(tlp_layout, kind)

/* ---- Host to device ------------------------------------------------------------ */

typedef struct tlp_buffer_from_host_args { /* PJRT_Client_BufferFromHostBuffer_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  const void* data;
  tlp_element_type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides; /* NULL/0: dense, row-major */
  size_t num_byte_strides;
  tlp_host_buffer_semantics host_buffer_semantics;
  tlp_device* device;
  tlp_memory* memory;               /* NULL: the device's default memory */
  tlp_layout* device_layout;        /* NULL: dense, row-major */
  tlp_event* done_with_host_buffer; /* out: caller destroys it */
  tlp_buffer* buffer;               /* out: caller destroys it */
} tlp_buffer_from_host_args;
#define TLP_BUFFER_FROM_HOST_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_from_host_args, buffer)
typedef tlp_error* tlp_client_buffer_from_host_fn(tlp_buffer_from_host_args* args);

/* ---- Device to host ------------------------------------------------------------ */

typedef struct tlp_buffer_to_host_args { /* PJRT_Buffer_ToHostBuffer_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* src;
  tlp_layout* host_layout; /* NULL: the buffer's own layout */
  void* dst;               /* NULL: only report the size needed in dst_size */
  size_t dst_size;         /* in: bytes at dst; out: bytes needed */
  tlp_event* event;        /* out: fires when the copy is done */
} tlp_buffer_to_host_args;
#define TLP_BUFFER_TO_HOST_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_to_host_args, event)
typedef tlp_error* tlp_buffer_to_host_fn(tlp_buffer_to_host_args* args);

/* ---- Buffer queries and life ------------------------------------------------------ */

/* One struct serves destroy and delete (each names just the buffer). Delete frees
 * the device memory but keeps the handle; destroy frees both. */
typedef struct tlp_buffer_args { /* PJRT_Buffer_{Destroy,Delete}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
} tlp_buffer_args;
#define TLP_BUFFER_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_args, buffer)
typedef tlp_error* tlp_buffer_destroy_fn(tlp_buffer_args* args);
typedef tlp_error* tlp_buffer_delete_fn(tlp_buffer_args* args);

typedef struct tlp_buffer_element_type_args { /* PJRT_Buffer_ElementType_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  tlp_element_type type; /* out */
} tlp_buffer_element_type_args;
#define TLP_BUFFER_ELEMENT_TYPE_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_element_type_args, type)
typedef tlp_error* tlp_buffer_element_type_fn(tlp_buffer_element_type_args* args);

typedef struct tlp_buffer_dimensions_args { /* PJRT_Buffer_Dimensions_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  const int64_t* dims; /* out: lives as long as the buffer */
  size_t num_dims;     /* out */
} tlp_buffer_dimensions_args;
#define TLP_BUFFER_DIMENSIONS_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_dimensions_args, num_dims)
typedef tlp_error* tlp_buffer_dimensions_fn(tlp_buffer_dimensions_args* args);

/* A yes/no property: is deleted, or is on the CPU. */
typedef struct tlp_buffer_flag_args { /* PJRT_Buffer_{IsDeleted,IsOnCpu}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  bool value; /* out */
} tlp_buffer_flag_args;
#define TLP_BUFFER_FLAG_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_flag_args, value)
typedef tlp_error* tlp_buffer_is_deleted_fn(tlp_buffer_flag_args* args);
typedef tlp_error* tlp_buffer_is_on_cpu_fn(tlp_buffer_flag_args* args);

typedef struct tlp_buffer_size_args { /* PJRT_Buffer_OnDeviceSizeInBytes_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  size_t on_device_size_in_bytes; /* out */
} tlp_buffer_size_args;
#define TLP_BUFFER_SIZE_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_size_args, on_device_size_in_bytes)
typedef tlp_error* tlp_buffer_on_device_size_fn(tlp_buffer_size_args* args);

typedef struct tlp_buffer_device_args { /* PJRT_Buffer_Device_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  tlp_device* device; /* out */
} tlp_buffer_device_args;
#define TLP_BUFFER_DEVICE_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_device_args, device)
typedef tlp_error* tlp_buffer_device_fn(tlp_buffer_device_args* args);

typedef struct tlp_buffer_memory_args { /* PJRT_Buffer_Memory_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  tlp_memory* memory; /* out */
} tlp_buffer_memory_args;
#define TLP_BUFFER_MEMORY_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_memory_args, memory)
typedef tlp_error* tlp_buffer_memory_fn(tlp_buffer_memory_args* args);

typedef struct tlp_buffer_ready_event_args { /* PJRT_Buffer_ReadyEvent_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_buffer* buffer;
  tlp_event* event; /* out: fires when the data is there (or failed); caller destroys it */
} tlp_buffer_ready_event_args;
#define TLP_BUFFER_READY_EVENT_ARGS_SIZE TLP_FILLED_SIZE(tlp_buffer_ready_event_args, event)
typedef tlp_error* tlp_buffer_ready_event_fn(tlp_buffer_ready_event_args* args);

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_BUFFER_H */

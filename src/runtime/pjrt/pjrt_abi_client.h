/* Tlaloc's declaration of the PJRT C ABI, part 2: clients, devices and memories.
 * Include "runtime/pjrt/pjrt_abi.h", not the parts. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_CLIENT_H
#define TLALOC_RUNTIME_PJRT_ABI_CLIENT_H

#include "runtime/pjrt/pjrt_abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(modernize-use-using): this is C, where typedef is the only spelling */

/* ---- Client life ----------------------------------------------------------- */

/* The key-value store callbacks serve multi-process clients; Tlaloc passes NULL.
 * Their argument structs are not declared here. */
typedef tlp_error* (*tlp_kv_callback)(void* args);

typedef struct tlp_client_create_args { /* PJRT_Client_Create_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  const tlp_named_value* create_options; /* platform options, e.g. platform_name = "cuda" */
  size_t num_options;
  tlp_kv_callback kv_get_callback;
  void* kv_get_user_arg;
  tlp_kv_callback kv_put_callback;
  void* kv_put_user_arg;
  tlp_client* client;                  /* out */
  tlp_kv_callback kv_try_get_callback; /* since 0.61 */
  void* kv_try_get_user_arg;
} tlp_client_create_args;
#define TLP_CLIENT_CREATE_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_create_args, kv_try_get_user_arg)
typedef tlp_error* tlp_client_create_fn(tlp_client_create_args* args);

/* One struct serves destroy (and any other call naming just the client). */
typedef struct tlp_client_args { /* PJRT_Client_Destroy_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
} tlp_client_args;
#define TLP_CLIENT_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_args, client)
typedef tlp_error* tlp_client_destroy_fn(tlp_client_args* args); /* client may be NULL */

/* A string owned by the client: platform name ("cpu", "cuda", ...) or version. */
typedef struct tlp_client_string_args { /* PJRT_Client_Platform{Name,Version}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  const char* text; /* out: lives as long as the client; not NUL-terminated */
  size_t text_size; /* out */
} tlp_client_string_args;
#define TLP_CLIENT_STRING_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_string_args, text_size)
typedef tlp_error* tlp_client_platform_name_fn(tlp_client_string_args* args);
typedef tlp_error* tlp_client_platform_version_fn(tlp_client_string_args* args);

typedef struct tlp_client_process_index_args { /* PJRT_Client_ProcessIndex_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  int process_index; /* out: 0 in a single process */
} tlp_client_process_index_args;
#define TLP_CLIENT_PROCESS_INDEX_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_process_index_args, process_index)
typedef tlp_error* tlp_client_process_index_fn(tlp_client_process_index_args* args);

/* All devices, or only those this process can drive (addressable ones). */
typedef struct tlp_client_devices_args { /* PJRT_Client_{,Addressable}Devices_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  tlp_device* const* devices; /* out: owned by the client */
  size_t num_devices;         /* out */
} tlp_client_devices_args;
#define TLP_CLIENT_DEVICES_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_devices_args, num_devices)
typedef tlp_error* tlp_client_devices_fn(tlp_client_devices_args* args);
typedef tlp_error* tlp_client_addressable_devices_fn(tlp_client_devices_args* args);

typedef struct tlp_client_memories_args { /* PJRT_Client_AddressableMemories_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_client* client;
  tlp_memory* const* memories; /* out: owned by the client */
  size_t num_memories;         /* out */
} tlp_client_memories_args;
#define TLP_CLIENT_MEMORIES_ARGS_SIZE TLP_FILLED_SIZE(tlp_client_memories_args, num_memories)
typedef tlp_error* tlp_client_addressable_memories_fn(tlp_client_memories_args* args);

/* ---- Device descriptions: what a device is ---------------------------------- */

/* An int property of a description: id (unique per platform) or process index. */
typedef struct tlp_description_int_args { /* PJRT_DeviceDescription_{Id,ProcessIndex}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device_description* description;
  int value; /* out */
} tlp_description_int_args;
#define TLP_DESCRIPTION_INT_ARGS_SIZE TLP_FILLED_SIZE(tlp_description_int_args, value)
typedef tlp_error* tlp_description_id_fn(tlp_description_int_args* args);
typedef tlp_error* tlp_description_process_index_fn(tlp_description_int_args* args);

/* Note the order: the count comes before the array here, unlike elsewhere. */
typedef struct tlp_description_attributes_args { /* PJRT_DeviceDescription_Attributes_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device_description* description;
  size_t num_attributes;             /* out */
  const tlp_named_value* attributes; /* out */
} tlp_description_attributes_args;
#define TLP_DESCRIPTION_ATTRIBUTES_ARGS_SIZE TLP_FILLED_SIZE(tlp_description_attributes_args, attributes)
typedef tlp_error* tlp_description_attributes_fn(tlp_description_attributes_args* args);

/* A string property: kind ("NVIDIA H200"), debug string or short string. */
typedef struct tlp_description_string_args { /* PJRT_DeviceDescription_{Kind,DebugString,ToString}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device_description* description;
  const char* text; /* out: lives as long as the device; not NUL-terminated */
  size_t text_size; /* out */
} tlp_description_string_args;
#define TLP_DESCRIPTION_STRING_ARGS_SIZE TLP_FILLED_SIZE(tlp_description_string_args, text_size)
typedef tlp_error* tlp_description_kind_fn(tlp_description_string_args* args);
typedef tlp_error* tlp_description_debug_string_fn(tlp_description_string_args* args);
typedef tlp_error* tlp_description_to_string_fn(tlp_description_string_args* args);

/* ---- Devices ------------------------------------------------------------------ */

typedef struct tlp_device_get_description_args { /* PJRT_Device_GetDescription_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device* device;
  tlp_device_description* description; /* out */
} tlp_device_get_description_args;
#define TLP_DEVICE_GET_DESCRIPTION_ARGS_SIZE TLP_FILLED_SIZE(tlp_device_get_description_args, description)
typedef tlp_error* tlp_device_get_description_fn(tlp_device_get_description_args* args);

typedef struct tlp_device_is_addressable_args { /* PJRT_Device_IsAddressable_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device* device;
  bool is_addressable; /* out */
} tlp_device_is_addressable_args;
#define TLP_DEVICE_IS_ADDRESSABLE_ARGS_SIZE TLP_FILLED_SIZE(tlp_device_is_addressable_args, is_addressable)
typedef tlp_error* tlp_device_is_addressable_fn(tlp_device_is_addressable_args* args);

typedef struct tlp_device_local_hardware_id_args { /* PJRT_Device_LocalHardwareId_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device* device;
  int local_hardware_id; /* out: e.g. the CUDA ordinal; -1 when undefined */
} tlp_device_local_hardware_id_args;
#define TLP_DEVICE_LOCAL_HARDWARE_ID_ARGS_SIZE \
  TLP_FILLED_SIZE(tlp_device_local_hardware_id_args, local_hardware_id)
typedef tlp_error* tlp_device_local_hardware_id_fn(tlp_device_local_hardware_id_args* args);

typedef struct tlp_device_memories_args { /* PJRT_Device_AddressableMemories_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device* device;
  tlp_memory* const* memories; /* out: live as long as the device */
  size_t num_memories;         /* out */
} tlp_device_memories_args;
#define TLP_DEVICE_MEMORIES_ARGS_SIZE TLP_FILLED_SIZE(tlp_device_memories_args, num_memories)
typedef tlp_error* tlp_device_addressable_memories_fn(tlp_device_memories_args* args);

typedef struct tlp_device_default_memory_args { /* PJRT_Device_DefaultMemory_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_device* device;
  tlp_memory* memory; /* out: where buffers for this device go by default */
} tlp_device_default_memory_args;
#define TLP_DEVICE_DEFAULT_MEMORY_ARGS_SIZE TLP_FILLED_SIZE(tlp_device_default_memory_args, memory)
typedef tlp_error* tlp_device_default_memory_fn(tlp_device_default_memory_args* args);

/* ---- Memories (memory spaces such as "device" or "pinned_host") ------------- */

typedef struct tlp_memory_int_args { /* PJRT_Memory_{Id,Kind_Id}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_memory* memory;
  int value; /* out */
} tlp_memory_int_args;
#define TLP_MEMORY_INT_ARGS_SIZE TLP_FILLED_SIZE(tlp_memory_int_args, value)
typedef tlp_error* tlp_memory_id_fn(tlp_memory_int_args* args);
typedef tlp_error* tlp_memory_kind_id_fn(tlp_memory_int_args* args);

typedef struct tlp_memory_string_args { /* PJRT_Memory_{Kind,DebugString,ToString}_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_memory* memory;
  const char* text; /* out: lives as long as the memory; not NUL-terminated */
  size_t text_size; /* out */
} tlp_memory_string_args;
#define TLP_MEMORY_STRING_ARGS_SIZE TLP_FILLED_SIZE(tlp_memory_string_args, text_size)
typedef tlp_error* tlp_memory_kind_fn(tlp_memory_string_args* args);
typedef tlp_error* tlp_memory_debug_string_fn(tlp_memory_string_args* args);
typedef tlp_error* tlp_memory_to_string_fn(tlp_memory_string_args* args);

typedef struct tlp_memory_devices_args { /* PJRT_Memory_AddressableByDevices_Args */
  size_t struct_size;
  tlp_extension* extension_start;
  tlp_memory* memory;
  tlp_device* const* devices; /* out */
  size_t num_devices;         /* out */
} tlp_memory_devices_args;
#define TLP_MEMORY_DEVICES_ARGS_SIZE TLP_FILLED_SIZE(tlp_memory_devices_args, num_devices)
typedef tlp_error* tlp_memory_addressable_by_devices_fn(tlp_memory_devices_args* args);

/* NOLINTEND(modernize-use-using) */

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_RUNTIME_PJRT_ABI_CLIENT_H */

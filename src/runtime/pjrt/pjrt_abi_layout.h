/* Compile-time checks that Tlaloc's declaration of the PJRT ABI has the published
 * layout on LP64 targets (x86-64, AArch64). The expected numbers were derived by
 * hand from the field lists of the PJRT header (8-byte pointers and size_t, 4-byte
 * int and enums, natural alignment); a field moved or retyped by mistake breaks
 * the build instead of a plugin call. The table's total, 138 slots in 1144 bytes,
 * matches what is published for PJRT 0.110 to 0.114. */
#ifndef TLALOC_RUNTIME_PJRT_ABI_LAYOUT_H
#define TLALOC_RUNTIME_PJRT_ABI_LAYOUT_H

#include "runtime/pjrt/pjrt_abi_table.h"

#if defined(__LP64__) && (defined(__x86_64__) || defined(__aarch64__))

#ifdef __cplusplus
#define TLP_ABI_CHECK(cond) static_assert(cond, #cond)
#else
#define TLP_ABI_CHECK(cond) _Static_assert(cond, #cond)
#endif

/* Conventions and records */
TLP_ABI_CHECK(TLP_EXTENSION_SIZE == 24);
TLP_ABI_CHECK(sizeof(tlp_api_version) == 24 && offsetof(tlp_api_version, minor_version) == 20);
TLP_ABI_CHECK(TLP_ERROR_MESSAGE_ARGS_SIZE == 40 && TLP_ERROR_GET_CODE_ARGS_SIZE == 28);
TLP_ABI_CHECK(offsetof(tlp_named_value, kind) == 32 && offsetof(tlp_named_value, int64_value) == 40);
TLP_ABI_CHECK(TLP_NAMED_VALUE_SIZE == 56 && sizeof(tlp_named_value) == 56);
TLP_ABI_CHECK(TLP_PLUGIN_INITIALIZE_ARGS_SIZE == 16 && TLP_PLUGIN_ATTRIBUTES_ARGS_SIZE == 32);
TLP_ABI_CHECK(TLP_EVENT_IS_READY_ARGS_SIZE == 25 && TLP_EVENT_ON_READY_ARGS_SIZE == 40);

/* Client, devices, memories */
TLP_ABI_CHECK(offsetof(tlp_client_create_args, client) == 64 && TLP_CLIENT_CREATE_ARGS_SIZE == 88);
TLP_ABI_CHECK(TLP_CLIENT_STRING_ARGS_SIZE == 40 && TLP_CLIENT_DEVICES_ARGS_SIZE == 40);
TLP_ABI_CHECK(offsetof(tlp_description_attributes_args, num_attributes) == 24);
TLP_ABI_CHECK(TLP_DESCRIPTION_ATTRIBUTES_ARGS_SIZE == 40 && TLP_DESCRIPTION_INT_ARGS_SIZE == 28);
TLP_ABI_CHECK(TLP_DEVICE_IS_ADDRESSABLE_ARGS_SIZE == 25 && TLP_DEVICE_DEFAULT_MEMORY_ARGS_SIZE == 32);

/* Buffers and layouts */
TLP_ABI_CHECK(sizeof(tlp_layout_tiled) == 56 && offsetof(tlp_layout, kind) == 72);
TLP_ABI_CHECK(offsetof(tlp_buffer_from_host_args, type) == 32 &&
              offsetof(tlp_buffer_from_host_args, dims) == 40);
TLP_ABI_CHECK(offsetof(tlp_buffer_from_host_args, host_buffer_semantics) == 72);
TLP_ABI_CHECK(offsetof(tlp_buffer_from_host_args, device) == 80 && TLP_BUFFER_FROM_HOST_ARGS_SIZE == 120);
TLP_ABI_CHECK(offsetof(tlp_buffer_to_host_args, dst_size) == 40 && TLP_BUFFER_TO_HOST_ARGS_SIZE == 56);
TLP_ABI_CHECK(TLP_BUFFER_ELEMENT_TYPE_ARGS_SIZE == 28 && TLP_BUFFER_DIMENSIONS_ARGS_SIZE == 40);

/* Compilation and execution */
TLP_ABI_CHECK(TLP_PROGRAM_SIZE == 48 && offsetof(tlp_program, format) == 32);
TLP_ABI_CHECK(offsetof(tlp_client_compile_args, executable) == 48 && TLP_CLIENT_COMPILE_ARGS_SIZE == 56);
TLP_ABI_CHECK(offsetof(tlp_execute_options, launch_id) == 48 && offsetof(tlp_execute_options, context) == 72);
TLP_ABI_CHECK(offsetof(tlp_execute_options, multi_slice_config) == 112 && TLP_EXECUTE_OPTIONS_SIZE == 121);
TLP_ABI_CHECK(offsetof(tlp_execute_args, output_lists) == 56 && TLP_EXECUTE_ARGS_SIZE == 80);
TLP_ABI_CHECK(TLP_EXECUTABLE_SERIALIZE_ARGS_SIZE == 56 && TLP_DESERIALIZE_AND_LOAD_ARGS_SIZE == 64);
TLP_ABI_CHECK(offsetof(tlp_deserialize_and_load_args, loaded) == 40);
TLP_ABI_CHECK(TLP_EXECUTABLE_COUNT_ARGS_SIZE == 32 && TLP_EXECUTABLE_OUTPUT_DIMS_ARGS_SIZE == 48);

/* The table: slot n at 40 + 8n */
TLP_ABI_CHECK(offsetof(tlp_api, version) == 16 && offsetof(tlp_api, error_destroy) == 40);
TLP_ABI_CHECK(offsetof(tlp_api, plugin_initialize) == 40 + 8 * 3);
TLP_ABI_CHECK(offsetof(tlp_api, client_create) == 40 + 8 * 10);
TLP_ABI_CHECK(offsetof(tlp_api, client_compile) == 40 + 8 * 20);
TLP_ABI_CHECK(offsetof(tlp_api, client_buffer_from_host) == 40 + 8 * 22);
TLP_ABI_CHECK(offsetof(tlp_api, memory_id) == 40 + 8 * 35);
TLP_ABI_CHECK(offsetof(tlp_api, executable_destroy) == 40 + 8 * 40);
TLP_ABI_CHECK(offsetof(tlp_api, loaded_destroy) == 40 + 8 * 50);
TLP_ABI_CHECK(offsetof(tlp_api, loaded_execute) == 40 + 8 * 55);
TLP_ABI_CHECK(offsetof(tlp_api, buffer_destroy) == 40 + 8 * 58);
TLP_ABI_CHECK(offsetof(tlp_api, buffer_to_host) == 40 + 8 * 70);
TLP_ABI_CHECK(offsetof(tlp_api, stream_destroy) == 40 + 8 * 77);
TLP_ABI_CHECK(offsetof(tlp_api, topology_create) == 40 + 8 * 82);
TLP_ABI_CHECK(offsetof(tlp_api, executable_output_types) == 40 + 8 * 90);
TLP_ABI_CHECK(offsetof(tlp_api, memory_kind_id) == 40 + 8 * 97);
TLP_ABI_CHECK(offsetof(tlp_api, client_dma_map) == 40 + 8 * 110);
TLP_ABI_CHECK(offsetof(tlp_api, event_create) == 40 + 8 * 126);
TLP_ABI_CHECK(TLP_API_VERSION_END == 40 && TLP_API_REQUIRED_SIZE == 40 + 8 * 90);
TLP_ABI_CHECK(TLP_API_SIZE == 1144 && sizeof(tlp_api) == 1144);

#undef TLP_ABI_CHECK

#endif /* LP64 x86-64 / AArch64 */

#endif /* TLALOC_RUNTIME_PJRT_ABI_LAYOUT_H */

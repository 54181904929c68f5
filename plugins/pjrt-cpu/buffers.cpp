// Buffers: host tensors behind PJRT handles. Transfers copy before they return, so
// every host-buffer semantics is honoured (the host data is never kept) and the
// events handed back are ready.
#include <cstring>

#include "core/tensor_impl.hpp"
#include "objects.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

std::size_t byte_size(const tlp_buffer& b) {
  std::size_t n = itemsize(dtype_of(b.type));
  for (std::int64_t d : b.dims) n *= static_cast<std::size_t>(d);
  return n;
}

// Strides, when given, must describe the dense row-major layout Tlaloc keeps.
void check_dense(const std::int64_t* strides, std::size_t n, const std::vector<std::int64_t>& dims,
                 std::size_t item) {
  if (n == 0) return;
  if (n != dims.size())
    throw Failure(TLP_INVALID_ARGUMENT, fmt::format("{} byte strides for {} dimensions", n, dims.size()));
  auto expected = static_cast<std::int64_t>(item);
  for (std::size_t i = n; i-- > 0;) {
    if (dims[i] > 1 && non_null(strides, "byte_strides")[i] != expected)
      throw Failure(TLP_UNIMPLEMENTED, "only dense row-major host data is accepted (byte_strides differ)");
    expected *= dims[i];
  }
}

// A layout, when given, must be the dense row-major one.
void check_row_major(const tlp_layout* layout, std::size_t rank) {
  if (layout == nullptr) return;
  bool row_major = layout->kind == TLP_LAYOUT_TILED && layout->tiled.num_tiles == 0 &&
                   layout->tiled.minor_to_major_size == rank;
  for (std::size_t i = 0; row_major && i < rank; ++i)
    row_major = layout->tiled.minor_to_major[i] == static_cast<std::int64_t>(rank - 1 - i);
  if (!row_major) throw Failure(TLP_UNIMPLEMENTED, "only the dense row-major layout is supported");
}

tlp_buffer& live(tlp_buffer* b, std::string_view what) {
  non_null(b, what);
  if (!b->tensor.defined())
    throw Failure(TLP_FAILED_PRECONDITION, fmt::format("{} was deleted or donated to an execution", what));
  return *b;
}

tlp_error* buffer_from_host(tlp_buffer_from_host_args* args) {
  return guarded("PJRT_Client_BufferFromHostBuffer", [&] {
    need(args, TLP_BUFFER_FROM_HOST_ARGS_SIZE, "PJRT_Client_BufferFromHostBuffer_Args");
    tlp_client* client = non_null(args->client, "the client");
    // On the device named, or the memory's, or else device 0.
    const int device = args->memory != nullptr   ? client->id_of(args->memory)
                       : args->device != nullptr ? client->id_of(args->device)
                                                 : 0;
    if (device < 0)
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("the {} is not this client's",
                                                      args->memory != nullptr ? "memory" : "device"));
    if (args->memory != nullptr && args->device != nullptr && client->id_of(args->device) != device)
      throw Failure(TLP_INVALID_ARGUMENT, "the device and the memory differ");
    if (args->host_buffer_semantics < TLP_HOST_ONLY_DURING_CALL || args->host_buffer_semantics > TLP_HOST_MUTABLE_ZERO_COPY)
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("unknown host buffer semantics {}", int(args->host_buffer_semantics)));
    const DType dtype = dtype_of(args->type);
    std::vector<std::int64_t> dims(args->num_dims);
    for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = non_null(args->dims, "dims")[i];
    Tensor t = detail::empty(Shape(dims.begin(), dims.end()), dtype);  // checks the sizes
    check_dense(args->byte_strides, args->num_byte_strides, dims, itemsize(dtype));
    check_row_major(args->device_layout, dims.size());
    const std::size_t bytes = static_cast<std::size_t>(t.numel()) * itemsize(dtype);
    if (bytes > 0) std::memcpy(t.impl().data(), non_null(args->data, "data"), bytes);
    auto buffer = std::make_unique<tlp_buffer>();
    buffer->client = client;
    buffer->device = client->devices[std::size_t(device)];
    buffer->type = args->type;
    buffer->dims = std::move(dims);
    buffer->tensor = std::move(t);
    auto done = std::make_unique<tlp_event>();
    args->buffer = buffer.release();
    args->done_with_host_buffer = done.release();
  });
}

tlp_error* buffer_to_host(tlp_buffer_to_host_args* args) {
  return guarded("PJRT_Buffer_ToHostBuffer", [&] {
    need(args, TLP_BUFFER_TO_HOST_ARGS_SIZE, "PJRT_Buffer_ToHostBuffer_Args");
    tlp_buffer& b = *non_null(args->src, "the buffer");
    check_row_major(args->host_layout, b.dims.size());
    const std::size_t bytes = byte_size(b);
    if (args->dst == nullptr) {
      args->dst_size = bytes;
      return;
    }
    if (args->dst_size < bytes)
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("dst holds {} bytes, the buffer needs {}", args->dst_size, bytes));
    std::lock_guard lock(b.mu);
    const Tensor& t = live(&b, "the buffer").tensor;
    if (bytes > 0) std::memcpy(args->dst, t.raw_data(), bytes);
    args->event = new tlp_event();
  });
}

tlp_error* buffer_destroy(tlp_buffer_args* args) {
  return guarded("PJRT_Buffer_Destroy", [&] {
    need(args, TLP_BUFFER_ARGS_SIZE, "PJRT_Buffer_Destroy_Args");
    delete args->buffer;
  });
}

tlp_error* buffer_delete(tlp_buffer_args* args) {
  return guarded("PJRT_Buffer_Delete", [&] {
    need(args, TLP_BUFFER_ARGS_SIZE, "PJRT_Buffer_Delete_Args");
    tlp_buffer& b = *non_null(args->buffer, "the buffer");
    std::lock_guard lock(b.mu);
    b.tensor = Tensor();
  });
}

tlp_error* buffer_is_deleted(tlp_buffer_flag_args* args) {
  return guarded("PJRT_Buffer_IsDeleted", [&] {
    need(args, TLP_BUFFER_FLAG_ARGS_SIZE, "PJRT_Buffer_IsDeleted_Args");
    tlp_buffer& b = *non_null(args->buffer, "the buffer");
    std::lock_guard lock(b.mu);
    args->value = !b.tensor.defined();
  });
}

tlp_error* buffer_is_on_cpu(tlp_buffer_flag_args* args) {
  return guarded("PJRT_Buffer_IsOnCpu", [&] {
    need(args, TLP_BUFFER_FLAG_ARGS_SIZE, "PJRT_Buffer_IsOnCpu_Args");
    non_null(args->buffer, "the buffer");
    args->value = true;
  });
}

tlp_error* buffer_element_type(tlp_buffer_element_type_args* args) {
  return guarded("PJRT_Buffer_ElementType", [&] {
    need(args, TLP_BUFFER_ELEMENT_TYPE_ARGS_SIZE, "PJRT_Buffer_ElementType_Args");
    args->type = non_null(args->buffer, "the buffer")->type;
  });
}

tlp_error* buffer_dimensions(tlp_buffer_dimensions_args* args) {
  return guarded("PJRT_Buffer_Dimensions", [&] {
    need(args, TLP_BUFFER_DIMENSIONS_ARGS_SIZE, "PJRT_Buffer_Dimensions_Args");
    const tlp_buffer& b = *non_null(args->buffer, "the buffer");
    args->dims = b.dims.data();
    args->num_dims = b.dims.size();
  });
}

tlp_error* buffer_on_device_size(tlp_buffer_size_args* args) {
  return guarded("PJRT_Buffer_OnDeviceSizeInBytes", [&] {
    need(args, TLP_BUFFER_SIZE_ARGS_SIZE, "PJRT_Buffer_OnDeviceSizeInBytes_Args");
    args->on_device_size_in_bytes = byte_size(*non_null(args->buffer, "the buffer"));
  });
}

tlp_error* buffer_device(tlp_buffer_device_args* args) {
  return guarded("PJRT_Buffer_Device", [&] {
    need(args, TLP_BUFFER_DEVICE_ARGS_SIZE, "PJRT_Buffer_Device_Args");
    args->device = non_null(args->buffer, "the buffer")->device;
  });
}

tlp_error* buffer_memory(tlp_buffer_memory_args* args) {
  return guarded("PJRT_Buffer_Memory", [&] {
    need(args, TLP_BUFFER_MEMORY_ARGS_SIZE, "PJRT_Buffer_Memory_Args");
    args->memory = non_null(args->buffer, "the buffer")->device->memories[0];
  });
}

tlp_error* buffer_ready_event(tlp_buffer_ready_event_args* args) {
  return guarded("PJRT_Buffer_ReadyEvent", [&] {
    need(args, TLP_BUFFER_READY_EVENT_ARGS_SIZE, "PJRT_Buffer_ReadyEvent_Args");
    non_null(args->buffer, "the buffer");
    args->event = new tlp_event();
  });
}

}  // namespace

void fill_buffers(tlp_api& a) {
  a.client_buffer_from_host = &buffer_from_host;
  a.buffer_to_host = &buffer_to_host;
  a.buffer_destroy = &buffer_destroy;
  a.buffer_delete = &buffer_delete;
  a.buffer_is_deleted = &buffer_is_deleted;
  a.buffer_is_on_cpu = &buffer_is_on_cpu;
  a.buffer_element_type = &buffer_element_type;
  a.buffer_dimensions = &buffer_dimensions;
  a.buffer_on_device_size = &buffer_on_device_size;
  a.buffer_device = &buffer_device;
  a.buffer_memory = &buffer_memory;
  a.buffer_ready_event = &buffer_ready_event;
}

}  // namespace tlaloc::pjrt_cpu

// PJRT_LoadedExecutable_Execute: on each of the executable's devices (one per
// process of the program's grid), arguments checked against the program's
// parameters, donation, results as new buffers on that device.
//
// Donation: with execute options that reach non_donatable_input_indices, every
// argument not listed there is donated (its buffer is deleted and its memory may
// become a result's); without such options nothing is donated (docs/PJRT.md).
#include <fmt/ranges.h>

#include "objects.hpp"

namespace tlaloc::pjrt_cpu {
namespace {

std::string type_text(DType dtype, const std::vector<std::int64_t>& dims) {
  std::vector<std::string> d;
  for (std::int64_t n : dims) d.push_back(n < 0 ? "?" : fmt::format("{}", n));
  return fmt::format("{}[{}]", dtype_name(dtype), fmt::join(d, ","));
}

bool fits(const ir::TensorType& want, DType dtype, const std::vector<std::int64_t>& dims) {
  if (want.dtype != dtype || want.shape.size() != dims.size()) return false;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (want.shape[i] >= 0 && want.shape[i] != dims[i]) return false;
  return true;
}

constexpr std::size_t kNonDonatableEnd = TLP_FILLED_SIZE(tlp_execute_options, num_non_donatable_input_indices);

std::vector<bool> donation(const tlp_execute_options* o, std::size_t n) {
  if (o == nullptr || o->struct_size < kNonDonatableEnd) return std::vector<bool>(n, false);
  std::vector<bool> donated(n, true);
  for (std::size_t k = 0; k < o->num_non_donatable_input_indices; ++k) {
    const std::int64_t i = non_null(o->non_donatable_input_indices, "non_donatable_input_indices")[k];
    if (i < 0 || static_cast<std::size_t>(i) >= n)
      throw Failure(TLP_INVALID_ARGUMENT,
                    fmt::format("non_donatable_input_indices names argument {}, the program takes {}", i, n));
    donated[static_cast<std::size_t>(i)] = false;
  }
  return donated;
}

// Everything is checked before any argument is consumed: a refused run donates nothing.
void check_arguments(tlp_buffer* const* in, std::size_t n, const std::vector<ir::TensorType>& want,
                     const std::vector<bool>& donated, const tlp_client* client) {
  for (std::size_t i = 0; i < n; ++i) {
    tlp_buffer& b = *non_null(in[i], fmt::format("argument {}", i));
    if (b.client != client) throw Failure(TLP_INVALID_ARGUMENT, fmt::format("argument {} belongs to another client", i));
    const DType dtype = dtype_of(b.type);
    if (!fits(want[i], dtype, b.dims))
      throw Failure(TLP_INVALID_ARGUMENT,
                    fmt::format("argument {} is {}, the program takes {}", i, type_text(dtype, b.dims),
                                type_text(want[i].dtype, want[i].shape)));
    {
      std::lock_guard lock(b.mu);
      if (!b.tensor.defined())
        throw Failure(TLP_FAILED_PRECONDITION, fmt::format("argument {} was deleted or donated to an execution", i));
    }
    for (std::size_t j = 0; j < n; ++j)
      if (j != i && in[j] == &b && (donated[i] || donated[j]))
        throw Failure(TLP_INVALID_ARGUMENT,
                      fmt::format("arguments {} and {} are the same buffer, and one of them is donated", i, j));
  }
}

std::vector<Tensor> take_arguments(tlp_buffer* const* in, std::size_t n, const std::vector<bool>& donated) {
  std::vector<Tensor> tensors;
  tensors.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::lock_guard lock(in[i]->mu);
    if (!in[i]->tensor.defined())  // deleted by another thread since the check
      throw Failure(TLP_FAILED_PRECONDITION, fmt::format("argument {} was deleted or donated to an execution", i));
    // A donated tensor leaves its buffer, so the interpreter may hold its only reference.
    tensors.push_back(donated[i] ? std::move(in[i]->tensor) : in[i]->tensor);
    if (donated[i]) in[i]->tensor = Tensor();
  }
  return tensors;
}

// Device k's arguments, checked against the program's parameters and its device.
struct DeviceArguments {
  tlp_buffer* const* in = nullptr;
  std::vector<bool> donated;
};
DeviceArguments device_arguments(const tlp_execute_args& args, const tlp_loaded_executable& e,
                                 std::size_t k) {
  const std::vector<ir::TensorType>& want = e.compiled->program.entry().param_types();
  const std::size_t n = args.num_args;
  if (n != want.size())
    throw Failure(TLP_INVALID_ARGUMENT,
                  fmt::format("the program takes {} arguments, got {}", want.size(), n));
  DeviceArguments d;
  if (n > 0)
    d.in = non_null(non_null(args.argument_lists, "argument_lists")[k], fmt::format("argument_lists[{}]", k));
  for (std::size_t i = 0; i < n; ++i)
    if (non_null(d.in[i], fmt::format("argument {}", i))->device != e.client->devices[k])
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("argument {} of device {} is on device {}", i, k,
                                                      e.client->id_of(d.in[i]->device)));
  d.donated = donation(args.options, n);
  check_arguments(d.in, n, want, d.donated, e.client);
  return d;
}

tlp_error* loaded_execute(tlp_execute_args* args) {
  return guarded("PJRT_LoadedExecutable_Execute", [&] {
    need(args, TLP_EXECUTE_ARGS_SIZE, "PJRT_LoadedExecutable_Execute_Args");
    tlp_loaded_executable& e = *non_null(args->executable, "the executable");
    if (e.deleted) throw Failure(TLP_FAILED_PRECONDITION, "the executable was deleted");
    const auto devices = std::size_t(e.compiled->devices);
    if (args->num_devices != devices)
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("the executable runs on {} device{}, {} were asked for",
                                                      devices, devices == 1 ? "" : "s", args->num_devices));
    if (args->execute_device != nullptr && (devices != 1 || args->execute_device != e.client->devices[0]))
      throw Failure(TLP_INVALID_ARGUMENT, "execute_device is not the executable's device");
    // Every device's arguments and outputs are checked before any argument is taken.
    std::vector<DeviceArguments> checked;
    for (std::size_t k = 0; k < devices; ++k) {
      checked.push_back(device_arguments(*args, e, k));
      non_null(non_null(args->output_lists, "output_lists")[k], fmt::format("output_lists[{}]", k));
    }
    std::vector<std::vector<Tensor>> in;
    for (const DeviceArguments& d : checked) in.push_back(take_arguments(d.in, args->num_args, d.donated));
    std::vector<std::vector<Tensor>> results =
        devices == 1 ? std::vector<std::vector<Tensor>>{e.compiled->program.run(in[0])}
                     : e.compiled->program.run_devices(in);
    std::vector<std::vector<std::unique_ptr<tlp_buffer>>> buffers(devices);
    for (std::size_t k = 0; k < devices; ++k)
      for (Tensor& t : results[k]) {
        auto b = std::make_unique<tlp_buffer>();
        b->client = e.client;
        b->device = e.client->devices[k];
        b->type = element_type(t.dtype());
        b->dims.assign(t.shape().begin(), t.shape().end());
        b->tensor = std::move(t);
        buffers[k].push_back(std::move(b));
      }
    std::vector<std::unique_ptr<tlp_event>> done;
    if (args->device_complete_events != nullptr)
      for (std::size_t k = 0; k < devices; ++k) done.push_back(std::make_unique<tlp_event>());
    for (std::size_t k = 0; k < devices; ++k) {
      tlp_buffer** out = args->output_lists[k];
      for (std::size_t i = 0; i < buffers[k].size(); ++i) out[i] = buffers[k][i].release();
      if (!done.empty()) args->device_complete_events[k] = done[k].release();
    }
  });
}

}  // namespace

void fill_execute(tlp_api& a) { a.loaded_execute = &loaded_execute; }

}  // namespace tlaloc::pjrt_cpu

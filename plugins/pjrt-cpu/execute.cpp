// PJRT_LoadedExecutable_Execute: one device, arguments checked against the
// program's parameters, donation, results as new buffers.
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

tlp_error* loaded_execute(tlp_execute_args* args) {
  return guarded("PJRT_LoadedExecutable_Execute", [&] {
    need(args, TLP_EXECUTE_ARGS_SIZE, "PJRT_LoadedExecutable_Execute_Args");
    tlp_loaded_executable& e = *non_null(args->executable, "the executable");
    if (e.deleted) throw Failure(TLP_FAILED_PRECONDITION, "the executable was deleted");
    if (args->num_devices != 1)
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("the executable runs on 1 device, {} were asked for",
                                                      args->num_devices));
    if (args->execute_device != nullptr && args->execute_device != &e.client->device)
      throw Failure(TLP_INVALID_ARGUMENT, "execute_device is not this client's device");
    const std::vector<ir::TensorType>& want = e.compiled->program.entry().param_types();
    const std::size_t n = args->num_args;
    if (n != want.size())
      throw Failure(TLP_INVALID_ARGUMENT, fmt::format("the program takes {} arguments, got {}", want.size(), n));
    tlp_buffer* const* in = n == 0 ? nullptr : non_null(non_null(args->argument_lists, "argument_lists")[0],
                                                        "argument_lists[0]");
    const std::vector<bool> donated = donation(args->options, n);
    check_arguments(in, n, want, donated, e.client);
    tlp_buffer** out = non_null(non_null(args->output_lists, "output_lists")[0], "output_lists[0]");
    std::vector<Tensor> results = e.compiled->program.run(take_arguments(in, n, donated));
    std::vector<std::unique_ptr<tlp_buffer>> buffers;
    for (Tensor& t : results) {
      auto b = std::make_unique<tlp_buffer>();
      b->client = e.client;
      b->type = element_type(t.dtype());
      b->dims.assign(t.shape().begin(), t.shape().end());
      b->tensor = std::move(t);
      buffers.push_back(std::move(b));
    }
    auto done = args->device_complete_events != nullptr ? std::make_unique<tlp_event>() : nullptr;
    for (std::size_t i = 0; i < buffers.size(); ++i) out[i] = buffers[i].release();
    if (done) args->device_complete_events[0] = done.release();
  });
}

}  // namespace

void fill_execute(tlp_api& a) { a.loaded_execute = &loaded_execute; }

}  // namespace tlaloc::pjrt_cpu

// What lies behind the PJRT handles of Tlaloc's CPU plugin (docs/PJRT.md, "Tlaloc's
// CPU plugin"): a client with N devices (the client option tlaloc_cpu_devices, 1 by
// default), each with one memory, buffers that are host tensors on one of them,
// executables that are interpreter programs. Also the rules every entry
// point follows: check the argument struct, catch every exception, and answer
// with a PJRT error that names the entry point.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "interp/interpreter.hpp"
#include "runtime/pjrt/pjrt_abi.h"
#include "tlaloc/error.hpp"
#include "tlaloc/tensor.hpp"

struct tlp_error {
  tlp_error_code code = TLP_OK;
  std::string message;
};

// Work finishes before an entry point returns, so every event is ready when made;
// it carries the outcome (TLP_OK or an error).
struct tlp_event {
  tlp_error_code code = TLP_OK;
  std::string message;
};

struct tlp_device_description {
  int id = 0;
  std::string kind, text;
};

struct tlp_memory {
  int id = 0;
  std::string kind, text;
  tlp_device* devices[1] = {};
};

struct tlp_device {
  tlp_device_description description;
  tlp_memory* memories[1] = {};
};

struct tlp_client {
  explicit tlp_client(int count);
  std::vector<std::unique_ptr<tlp_device>> device_list;
  std::vector<std::unique_ptr<tlp_memory>> memory_list;
  std::vector<tlp_device*> devices;  // id k at k
  std::vector<tlp_memory*> memories;
  // The device's id, or -1 for a device of another client.
  int id_of(const tlp_device* d) const;
  int id_of(const tlp_memory* m) const;
};

// A buffer is a host tensor. Donated or deleted, it keeps its type and loses its data.
struct tlp_buffer {
  tlp_client* client = nullptr;
  tlp_device* device = nullptr;
  tlp_element_type type = TLP_TYPE_INVALID;
  std::vector<std::int64_t> dims;
  std::mutex mu;
  tlaloc::Tensor tensor;  // undefined once deleted
};

namespace tlaloc::pjrt_cpu {

// A compiled program, shared by the executables and loaded executables made from it.
struct Compiled {
  std::string text;  // what serialization writes
  interp::Program program;
  int devices = 1;  // the program's grid: mhlo.num_replicas x mhlo.num_partitions
  std::vector<tlp_element_type> output_types;
  std::vector<std::int64_t> output_dims;  // all outputs' dimensions, concatenated
  std::vector<std::size_t> output_ranks;
  std::string name, fingerprint;
};

}  // namespace tlaloc::pjrt_cpu

struct tlp_executable {
  std::shared_ptr<const tlaloc::pjrt_cpu::Compiled> compiled;
};

struct tlp_loaded_executable {
  tlp_client* client = nullptr;
  std::shared_ptr<const tlaloc::pjrt_cpu::Compiled> compiled;
  std::atomic<bool> deleted = false;
};

struct tlp_serialized_executable {
  std::string bytes;
};

namespace tlaloc::pjrt_cpu {

// Thrown inside an entry point; the guard turns it into a PJRT error.
class Failure : public std::runtime_error {
 public:
  Failure(tlp_error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  tlp_error_code code() const { return code_; }

 private:
  tlp_error_code code_;
};

// A new error, or (when even that allocation fails) a shared one the destroy entry
// point knows not to free.
tlp_error* make_error(tlp_error_code code, std::string_view message) noexcept;
bool is_static_error(const tlp_error* e) noexcept;

// Runs an entry point's body: nothing escapes, every failure becomes an error
// whose message starts with the PJRT name of the entry point.
template <class Body>
tlp_error* guarded(std::string_view entry, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Failure& f) {
    return make_error(f.code(), fmt::format("{}: {}", entry, f.what()));
  } catch (const tlaloc::Error& e) {  // the parser's and the interpreter's complaints about the input
    return make_error(TLP_INVALID_ARGUMENT, fmt::format("{}: {}", entry, e.what()));
  } catch (const std::bad_alloc&) {
    return make_error(TLP_RESOURCE_EXHAUSTED, fmt::format("{}: out of memory", entry));
  } catch (const std::exception& e) {
    return make_error(TLP_INTERNAL, fmt::format("{}: {}", entry, e.what()));
  } catch (...) {
    return make_error(TLP_UNKNOWN, fmt::format("{}: an unknown exception", entry));
  }
}

// The argument struct must be there and hold every field the entry point reads
// (as XLA's plugins require of theirs).
template <class Args>
void need(const Args* args, std::size_t size, std::string_view what) {
  if (args == nullptr) throw Failure(TLP_INVALID_ARGUMENT, fmt::format("the {} pointer is null", what));
  if (args->struct_size < size)
    throw Failure(TLP_INVALID_ARGUMENT, fmt::format("{} has struct_size {}, Tlaloc's CPU plugin needs at least {} "
                                                    "(PJRT 0.110's layout)",
                                                    what, args->struct_size, size));
}
template <class Handle>
Handle* non_null(Handle* h, std::string_view what) {
  if (h == nullptr) throw Failure(TLP_INVALID_ARGUMENT, fmt::format("{} is null", what));
  return h;
}

tlp_element_type element_type(DType t);
DType dtype_of(tlp_element_type t);  // throws INVALID_ARGUMENT for types Tlaloc lacks

// Parses and verifies StableHLO text and prepares it to run.
std::shared_ptr<const Compiled> compile_text(std::string text);

// The entry points, by family, written into the table.
void fill_errors_and_events(tlp_api& api);
void fill_client(tlp_api& api);
void fill_buffers(tlp_api& api);
void fill_executables(tlp_api& api);
void fill_execute(tlp_api& api);
void fill_ffi(tlp_api& api);
void fill_unimplemented(tlp_api& api);

}  // namespace tlaloc::pjrt_cpu

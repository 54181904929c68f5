// tl::runtime: running StableHLO programs on a device, with the buffers kept there.
//
//   tl::runtime::Session s;                           // the embedded interpreter
//   tl::runtime::Executable e = s.compile(step.stablehlo());
//   std::vector<tl::runtime::Buffer> state = s.to_device(tensors);
//   auto out = e.run(args, {.donate = {0, 1, 2}});     // donated inputs are consumed
//   float loss = out.back().to_host().item<float>();
//
// A Session owns a backend: the embedded interpreter (the default) or a PJRT plugin
// (docs/PJRT.md). Programs compile once per text and options; the in-memory cache
// is keyed by the program text, the compile options and the backend's platform name
// and version, and so is the optional on-disk cache (PJRT only; docs/RUNTIME.md). A Buffer lives on the session's device until the last handle to it
// goes, or until it is donated to a run. Sessions, executables and buffers may be
// used from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::runtime {

// A failure of the runtime or of the backend: the backend's own message, and its
// error code where it has one (PJRT's codes; 0 when none).
class RuntimeError : public Error {
 public:
  RuntimeError(const std::string& message, int code = 0) : Error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// A PJRT plugin that cannot be loaded (missing, not a plugin, an incompatible
// version), or whose set-up failed (docs/PJRT.md).
class PluginError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

enum class Backend { interpreter, pjrt };

// An option for a PJRT plugin's client, by name (a PJRT named value): the CUDA
// plugin reads memory_fraction (float), preallocate (bool), allocator (string), ...
struct ClientOption {
  std::string name;
  std::variant<std::string, std::int64_t, float, bool> value;
};

struct SessionOptions {
  Backend backend = Backend::interpreter;
  // For pjrt: the plugin's path, or "tlaloc_cpu" for Tlaloc's CPU plugin where it is
  // installed; empty means the TLALOC_PJRT_PLUGIN_PATH variable.
  std::string plugin_path = {};
  // For pjrt: the directory of the on-disk compile cache; empty means the
  // TLALOC_PJRT_CACHE_DIR variable; neither: no disk cache. Another process (or
  // session) compiling the same program with the same plugin loads it from there
  // instead of compiling. The interpreter backend has nothing to store and
  // ignores it.
  std::string cache_dir = {};
  // For pjrt: the client's options. Unset: chosen by plugin, so that a session does
  // not take a whole GPU: for a CUDA plugin (a file name containing "cuda"),
  // memory_fraction 0.75 and preallocate false; for any other, none.
  std::optional<std::vector<ClientOption>> client_options = std::nullopt;
};

// The type of a program's argument or result.
struct BufferType {
  DType dtype = DType::f32;
  Shape shape = {};
  bool operator==(const BufferType&) const = default;
};

class Buffer {
 public:
  Buffer() = default;
  BufferType type() const;
  DType dtype() const { return type().dtype; }
  Shape shape() const { return type().shape; }
  // A copy on the host. Refused, by name, for a buffer donated to a run.
  Tensor to_host() const;
  // False once the buffer was donated (its memory now belongs to a run's result).
  bool valid() const;

  struct Impl;
  explicit Buffer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

struct RunOptions {
  // Arguments whose buffers the run may consume (reuse for its results); they are
  // invalid afterwards. Each must be passed once and not be used again.
  std::vector<std::size_t> donate = {};
};

class Executable {
 public:
  const std::vector<BufferType>& input_types() const;
  const std::vector<BufferType>& output_types() const;
  // Runs on device buffers; the results stay on the device.
  std::vector<Buffer> run(std::span<const Buffer> args, const RunOptions& options = {}) const;
  // Host tensors in, host tensors out (a copy each way).
  std::vector<Tensor> run(std::span<const Tensor> args) const;

  struct Impl;
  explicit Executable(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// hits and misses: the session's in-memory cache. Each miss with a disk cache is
// also one of disk_hits (loaded, not compiled), disk_misses (no entry) or
// disk_rejected (an entry that failed a check or that the plugin refused);
// the last two compile, then write the entry (disk_writes, or
// disk_write_failures when it cannot be written: the compile still succeeds).
struct CacheStats {
  std::size_t hits = 0;
  std::size_t misses = 0;
  std::size_t disk_hits = 0;
  std::size_t disk_misses = 0;
  std::size_t disk_rejected = 0;
  std::size_t disk_writes = 0;
  std::size_t disk_write_failures = 0;
};

class Session {
 public:
  explicit Session(const SessionOptions& options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // "interpreter", or the plugin's platform name ("cuda", ...), and its version.
  std::string platform_name() const;
  std::string platform_version() const;

  // Compiles a StableHLO module (text, pretty or generic syntax), once per text.
  // `name` stands for the program in error positions ("programs/logits.mlir:3:7").
  Executable compile(std::string_view stablehlo_text, std::string_view name = "<program>") const;
  CacheStats cache_stats() const;

  Buffer to_device(const Tensor& t) const;
  std::vector<Buffer> to_device(std::span<const Tensor> ts) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tlaloc::runtime
TLALOC_PUBLIC_END

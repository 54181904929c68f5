// What a Session needs from a backend (the interpreter, a PJRT plugin): buffers on
// its device, programs compiled for it. Argument checking, donation and the compile
// cache live in src/runtime/session.cpp, once for every backend.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/pjrt/client.hpp"
#include "tlaloc/runtime.hpp"

namespace tlaloc::runtime::detail {

class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual BufferType type() const = 0;
  virtual Tensor to_host() const = 0;
};

class DeviceExecutable {
 public:
  virtual ~DeviceExecutable() = default;
  virtual const std::vector<BufferType>& input_types() const = 0;
  virtual const std::vector<BufferType>& output_types() const = 0;
  // args are checked against input_types; donated[i]: the run may consume args[i]
  // (the Session drops every other handle to it).
  virtual std::vector<std::shared_ptr<DeviceBuffer>> run(std::span<const std::shared_ptr<DeviceBuffer>> args,
                                                         const std::vector<bool>& donated) const = 0;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual std::string platform_name() const = 0;
  virtual std::string platform_version() const = 0;
  // `name` stands for the program in error positions.
  virtual std::unique_ptr<DeviceExecutable> compile(std::string_view stablehlo_text,
                                                    std::string_view name) = 0;
  virtual std::shared_ptr<DeviceBuffer> to_device(const Tensor& t) = 0;

  // Executable serialization, for the on-disk compile cache. A backend without it
  // (the interpreter: its "compiled" program is the parsed text) is never cached on disk.
  virtual bool serializes() const { return false; }
  // The compile options the backend sends with every program (part of the cache key).
  virtual std::string compile_options() const { return {}; }
  virtual std::string serialize(const DeviceExecutable& e) const;
  // An executable from serialize()'s bytes; `stablehlo_text` is the program they
  // were compiled from (its signature is read from it, as compile does).
  virtual std::unique_ptr<DeviceExecutable> deserialize(std::string_view bytes,
                                                        std::string_view stablehlo_text,
                                                        std::string_view name);
};

std::unique_ptr<DeviceBackend> make_interpreter_backend();
// The plugin at `plugin_path` (loaded once per process), a client made with
// `options` (none for Tlaloc's CPU plugin) and its first addressable device.
// SessionOptions::client_options, or the defaults for the plugin at `path`.
std::vector<ClientOption> client_options_for(const SessionOptions& options, const std::filesystem::path& path);
std::unique_ptr<DeviceBackend> make_pjrt_backend(const std::filesystem::path& plugin_path,
                                                 const std::vector<pjrt::ClientOption>& options);

class DiskCache;
// `text` compiled by `backend`, or loaded from `disk` where a valid entry of the
// same key is there (one that fails any check, or that the backend refuses, is
// recompiled and overwritten); counts in stats' disk_* fields. A failure to write
// the entry is counted, not thrown: the cache only ever saves time.
std::unique_ptr<DeviceExecutable> compile_through(DeviceBackend& backend, const DiskCache& disk,
                                                  std::string_view text, std::string_view name,
                                                  CacheStats& stats);

// A backend shared by its session, executables and buffers, so that it outlives
// every handle into it (PJRT buffers and executables must go before their client).
struct Device {
  std::unique_ptr<DeviceBackend> backend;
  std::mutex mu;  // calls into the backend that are not runs
};

}  // namespace tlaloc::runtime::detail

// Session, Executable and Buffer over a backend (src/runtime/backend.hpp): argument
// checks, donation and the compile cache, the same for every backend.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "runtime/backend.hpp"
#include "runtime/disk_cache.hpp"
#include "tlaloc/runtime.hpp"

namespace tlaloc::runtime {

struct Buffer::Impl {
  std::shared_ptr<detail::DeviceBuffer> device;  // null once donated
  std::shared_ptr<detail::Device> owner;
  std::mutex mu;

  std::shared_ptr<detail::DeviceBuffer> get(std::string_view who) {
    std::lock_guard lock(mu);
    if (device == nullptr) throw RuntimeError(fmt::format("tl::runtime::{}: the buffer was donated to a run", who));
    return device;
  }
};

struct Executable::Impl {
  std::unique_ptr<detail::DeviceExecutable> program;
  std::shared_ptr<detail::Device> owner;
};

struct Session::Impl {
  std::shared_ptr<detail::Device> device = std::make_shared<detail::Device>();
  std::mutex mu;  // the cache
  std::unordered_map<std::string, std::shared_ptr<const Executable::Impl>> cache;
  std::optional<detail::DiskCache> disk;  // PJRT only
  CacheStats stats;
};

namespace {

std::string type_text(const BufferType& t) {
  std::vector<std::string> dims;
  for (std::int64_t d : t.shape) dims.push_back(d < 0 ? "?" : fmt::format("{}", d));
  return fmt::format("{}[{}]", dtype_name(t.dtype), fmt::join(dims, ","));
}

bool fits(const BufferType& want, const BufferType& got) {
  if (want.dtype != got.dtype || want.shape.size() != got.shape.size()) return false;
  for (std::size_t i = 0; i < want.shape.size(); ++i)
    if (want.shape[i] >= 0 && want.shape[i] != got.shape[i]) return false;
  return true;
}

std::vector<bool> donation_mask(const RunOptions& options, std::size_t n) {
  std::vector<bool> donated(n, false);
  for (std::size_t i : options.donate) {
    if (i >= n)
      throw ValueError(fmt::format("tl::runtime::Executable::run: donate names argument {}, the run has {}", i, n));
    if (donated[i]) throw ValueError(fmt::format("tl::runtime::Executable::run: argument {} is donated twice", i));
    donated[i] = true;
  }
  return donated;
}

Buffer on_device(const std::shared_ptr<detail::Device>& owner, const Tensor& t) {
  if (!t.defined()) throw ValueError("tl::runtime::Session::to_device: the tensor is undefined");
  auto b = std::make_shared<Buffer::Impl>();
  {
    std::lock_guard lock(owner->mu);
    b->device = owner->backend->to_device(t);
  }
  b->owner = owner;
  return Buffer(std::move(b));
}

}  // namespace

BufferType Buffer::type() const {
  if (!impl_) throw ValueError("tl::runtime::Buffer: an empty buffer has no type");
  return impl_->get("Buffer::type")->type();
}

Tensor Buffer::to_host() const {
  if (!impl_) throw ValueError("tl::runtime::Buffer::to_host: the buffer is empty");
  return impl_->get("Buffer::to_host")->to_host();
}

bool Buffer::valid() const {
  if (!impl_) return false;
  std::lock_guard lock(impl_->mu);
  return impl_->device != nullptr;
}

const std::vector<BufferType>& Executable::input_types() const { return impl_->program->input_types(); }
const std::vector<BufferType>& Executable::output_types() const { return impl_->program->output_types(); }

std::vector<Buffer> Executable::run(std::span<const Buffer> args, const RunOptions& options) const {
  const std::vector<BufferType>& want = input_types();
  if (args.size() != want.size())
    throw ValueError(fmt::format("tl::runtime::Executable::run: the program takes {} arguments, got {}", want.size(),
                                 args.size()));
  const std::vector<bool> donated = donation_mask(options, args.size());
  std::vector<std::shared_ptr<detail::DeviceBuffer>> device;
  std::unordered_set<const Buffer::Impl*> seen_donated;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& b = args[i].impl();
    if (!b) throw ValueError(fmt::format("tl::runtime::Executable::run: argument {} is an empty buffer", i));
    if (b->owner != impl_->owner)
      throw ValueError(fmt::format("tl::runtime::Executable::run: argument {} lives in another session", i));
    device.push_back(b->get(fmt::format("Executable::run: argument {}", i)));
    const BufferType got = device.back()->type();
    if (!fits(want[i], got))
      throw ValueError(fmt::format("tl::runtime::Executable::run: argument {} is {}, the program takes {}", i,
                                   type_text(got), type_text(want[i])));
    if (donated[i] && !seen_donated.insert(b.get()).second)
      throw ValueError(fmt::format("tl::runtime::Executable::run: argument {} donates a buffer twice", i));
  }
  // Donated buffers are invalid from here on, whatever the run does.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!donated[i]) continue;
    std::lock_guard lock(args[i].impl()->mu);
    args[i].impl()->device.reset();
  }
  std::vector<Buffer> out;
  for (auto& d : impl_->program->run(device, donated)) {
    auto b = std::make_shared<Buffer::Impl>();
    b->device = std::move(d);
    b->owner = impl_->owner;
    out.emplace_back(std::move(b));
  }
  return out;
}

std::vector<Tensor> Executable::run(std::span<const Tensor> args) const {
  std::vector<Buffer> in;
  for (const Tensor& t : args) in.push_back(on_device(impl_->owner, t));
  std::vector<std::size_t> all(in.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<Tensor> out;
  for (const Buffer& b : run(in, {.donate = all})) out.push_back(b.to_host());
  return out;
}

namespace detail {

std::vector<ClientOption> client_options_for(const SessionOptions& options, const std::filesystem::path& path) {
  if (options.client_options) return *options.client_options;
  if (path.filename().string().find("cuda") != std::string::npos)
    return {{"memory_fraction", 0.75f}, {"preallocate", false}};
  return {};
}

}  // namespace detail

Session::Session(const SessionOptions& options) : impl_(std::make_unique<Impl>()) {
  switch (options.backend) {
    case Backend::interpreter:
      impl_->device->backend = detail::make_interpreter_backend();
      break;
    case Backend::pjrt: {
      // An empty path makes Plugin::load say that none was given, and how to give one.
      const std::filesystem::path path =
          options.plugin_path.empty() ? pjrt::Plugin::path_from_env().value_or("")
                                      : std::filesystem::path(options.plugin_path);
      impl_->device->backend = detail::make_pjrt_backend(path, detail::client_options_for(options, path));
      if (auto dir = detail::cache_dir_from(options.cache_dir); dir && impl_->device->backend->serializes())
        impl_->disk.emplace(*dir);
      break;
    }
  }
}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::string Session::platform_name() const { return impl_->device->backend->platform_name(); }
std::string Session::platform_version() const { return impl_->device->backend->platform_version(); }

Executable Session::compile(std::string_view text, std::string_view name) const {
  const std::string key = fmt::format("{}\n{}\n{}\n{}", platform_name(), platform_version(),
                                      impl_->device->backend->compile_options(), text);
  std::lock_guard lock(impl_->mu);
  if (auto it = impl_->cache.find(key); it != impl_->cache.end()) {
    ++impl_->stats.hits;
    return Executable(it->second);
  }
  ++impl_->stats.misses;
  auto e = std::make_shared<Executable::Impl>();
  {
    std::lock_guard device_lock(impl_->device->mu);
    detail::DeviceBackend& backend = *impl_->device->backend;
    e->program = impl_->disk ? detail::compile_through(backend, *impl_->disk, text, name, impl_->stats)
                             : backend.compile(text, name);
  }
  e->owner = impl_->device;
  impl_->cache.emplace(key, e);
  return Executable(std::move(e));
}

CacheStats Session::cache_stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

Buffer Session::to_device(const Tensor& t) const { return on_device(impl_->device, t); }

std::vector<Buffer> Session::to_device(std::span<const Tensor> ts) const {
  std::vector<Buffer> out;
  for (const Tensor& t : ts) out.push_back(to_device(t));
  return out;
}

}  // namespace tlaloc::runtime

// Compiling through the on-disk cache (src/runtime/disk_cache.hpp).
#include "runtime/backend.hpp"
#include "runtime/disk_cache.hpp"

namespace tlaloc::runtime::detail {

std::string DeviceBackend::serialize(const DeviceExecutable&) const {
  throw RuntimeError("tl::runtime: the " + platform_name() + " backend cannot serialize executables");
}

std::unique_ptr<DeviceExecutable> DeviceBackend::deserialize(std::string_view, std::string_view,
                                                             std::string_view) {
  throw RuntimeError("tl::runtime: the " + platform_name() + " backend cannot load serialized executables");
}

std::unique_ptr<DeviceExecutable> compile_through(DeviceBackend& backend, const DiskCache& disk,
                                                  std::string_view text, std::string_view program_name,
                                                  CacheStats& stats) {
  const std::string options = backend.compile_options();
  const std::string name = backend.platform_name(), version = backend.platform_version();
  const std::string key = cache_key({name, version, options, text});
  DiskCache::Entry entry = disk.read(key);
  if (entry.lookup == DiskCache::Lookup::hit) {
    try {
      std::unique_ptr<DeviceExecutable> e = backend.deserialize(entry.payload, text, program_name);
      ++stats.disk_hits;
      return e;
    } catch (const Error&) {
      // Checksummed bytes the backend still refuses: another build of the plugin
      // behind the same version string. Compiling again replaces them.
      entry.lookup = DiskCache::Lookup::rejected;
    }
  }
  ++(entry.lookup == DiskCache::Lookup::rejected ? stats.disk_rejected : stats.disk_misses);
  std::unique_ptr<DeviceExecutable> e = backend.compile(text, program_name);
  try {
    disk.write(key, backend.serialize(*e));
    ++stats.disk_writes;
  } catch (const Error&) {
    ++stats.disk_write_failures;  // read-only or full disk, a plugin that cannot serialize
  }
  return e;
}

}  // namespace tlaloc::runtime::detail

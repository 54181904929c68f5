// A PJRT client of a loaded plugin, with its addressable devices (Tlaloc runs a
// program of one process on the first, an SPMD program on the first few), and the
// rules for calling into it: every error the plugin returns becomes a
// tl::runtime::RuntimeError with the plugin's message and code; events are awaited
// and freed. Buffers and executables hold the Client, so it goes last.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/pjrt/plugin.hpp"
#include "tlaloc/runtime.hpp"

namespace tlaloc::runtime::pjrt {

// An option for PJRT_Client_Create (include/tlaloc/runtime.hpp; docs/PJRT.md).
using runtime::ClientOption;

class Client {
 public:
  Client(Plugin plugin, const std::vector<ClientOption>& options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Plugin& plugin() const { return plugin_; }
  const tlp_api& api() const { return plugin_.api(); }
  tlp_client* handle() const { return client_; }
  tlp_device* device() const { return devices_.at(0); }
  const std::vector<tlp_device*>& devices() const { return devices_; }
  // The plugin's id of an addressable device (PJRT_DeviceDescription_Id).
  std::int64_t id_of(tlp_device* device) const;
  const std::string& platform_name() const { return platform_name_; }
  const std::string& platform_version() const { return platform_version_; }

  // Throws RuntimeError naming `what` when the plugin returned an error.
  void check(tlp_error* error, std::string_view what) const;
  // Waits for the event (none: nothing to wait for), frees it, reports its error.
  void await(tlp_event* event, std::string_view what) const;

 private:
  std::string client_string(tlp_client_platform_name_fn* fn, std::string_view what) const;

  Plugin plugin_;
  tlp_client* client_ = nullptr;
  std::vector<tlp_device*> devices_;
  std::string platform_name_, platform_version_;
};

}  // namespace tlaloc::runtime::pjrt

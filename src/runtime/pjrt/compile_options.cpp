#include "runtime/pjrt/compile_options.hpp"

#include <fmt/format.h>

#include "tlaloc/error.hpp"

namespace tlaloc::runtime::pjrt {
namespace {

constexpr int kVarint = 0, kBytes = 2;

void varint(std::string& out, std::uint64_t v) {
  while (v > 0x7F) {
    out += char((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += char(v);
}
void key(std::string& out, int field, int wire) { varint(out, std::uint64_t(field << 3 | wire)); }
void number(std::string& out, int field, std::int64_t v) {
  key(out, field, kVarint);
  varint(out, std::uint64_t(v));  // a negative int64 is its ten-byte two's complement
}
void message(std::string& out, int field, const std::string& body) {
  key(out, field, kBytes);
  varint(out, body.size());
  out += body;
}

// xla.DeviceAssignmentProto: replica_count 1, computation_count 2, and per
// partition (computation_devices 3) its device on each replica (replica_device_ids 1).
std::string device_assignment(std::int64_t replicas, std::int64_t partitions,
                              std::span<const std::int64_t> ids) {
  std::string out;
  number(out, 1, replicas);
  number(out, 2, partitions);
  for (std::int64_t p = 0; p < partitions; ++p) {
    std::string devices;
    for (std::int64_t r = 0; r < replicas; ++r) number(devices, 1, ids[std::size_t(r * partitions + p)]);
    message(out, 3, devices);
  }
  return out;
}

}  // namespace

std::string compile_options(std::int64_t replicas, std::int64_t partitions,
                            std::span<const std::int64_t> ids) {
  const bool spmd = replicas * partitions > 1;
  if (spmd && std::int64_t(ids.size()) != replicas * partitions)
    throw Error(fmt::format("tl::runtime: a program of {} x {} processes needs as many devices, got {}",
                            replicas, partitions, ids.size()));
  std::string build;                        // xla.ExecutableBuildOptionsProto
  number(build, 1, -1);                     // device_ordinal: not set
  number(build, 4, replicas);               // num_replicas
  number(build, 5, partitions);             // num_partitions
  if (partitions > 1) number(build, 6, 1);  // use_spmd_partitioning
  if (spmd) message(build, 9, device_assignment(replicas, partitions, ids));
  std::string out;         // xla.CompileOptionsProto
  message(out, 3, build);  // executable_build_options
  return out;
}

}  // namespace tlaloc::runtime::pjrt

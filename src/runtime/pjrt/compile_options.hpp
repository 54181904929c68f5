// The serialized xla.CompileOptionsProto Tlaloc sends with every program
// (docs/PJRT.md, "Compiling: program and options"), written by hand: protobuf is
// not a dependency.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tlaloc::runtime::pjrt {

// device_ordinal -1 (the client chooses), the program's grid of replicas x
// partitions, and for a grid of more than one process the SPMD partitioner and the
// devices it runs on: `device_ids` row-major, replica r's partition p at r * P + p.
std::string compile_options(std::int64_t replicas, std::int64_t partitions,
                            std::span<const std::int64_t> device_ids = {});

}  // namespace tlaloc::runtime::pjrt

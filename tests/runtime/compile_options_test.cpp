// The CompileOptionsProto bytes Tlaloc sends with a program (docs/PJRT.md), against
// bytes derived by hand from the field numbers of xla's compile_options.proto and
// xla_data.proto.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/pjrt/compile_options.hpp"
#include "tlaloc/error.hpp"

namespace {

namespace pjrt = tlaloc::runtime::pjrt;

std::string bytes(const std::vector<int>& v) {
  std::string s;
  for (int b : v) s += char(b);
  return s;
}

const std::vector<int> kUnsetOrdinal = {0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};

TEST(CompileOptions, OneProcessIsTheDocumentedBytes) {
  std::vector<int> want = {0x1A, 0x0F};
  want.insert(want.end(), kUnsetOrdinal.begin(), kUnsetOrdinal.end());
  want.insert(want.end(), {0x20, 0x01, 0x28, 0x01});
  EXPECT_EQ(pjrt::compile_options(1, 1), bytes(want));
}

// Two partitions on devices 0 and 1: use_spmd_partitioning (6) and the device
// assignment (9): replica_count 1, computation_count 2, one computation_devices
// (3) per partition holding its replica's device (replica_device_ids, 1).
TEST(CompileOptions, AnSpmdProgramSaysItsPartitionsAndDevices) {
  std::vector<int> want = {0x1A, 0x1F};
  want.insert(want.end(), kUnsetOrdinal.begin(), kUnsetOrdinal.end());
  want.insert(want.end(), {0x20, 0x01, 0x28, 0x02, 0x30, 0x01, 0x4A, 0x0C, 0x08, 0x01,
                           0x10, 0x02, 0x1A, 0x02, 0x08, 0x00, 0x1A, 0x02, 0x08, 0x01});
  const std::vector<std::int64_t> ids = {0, 1};
  EXPECT_EQ(pjrt::compile_options(1, 2, ids), bytes(want));
  EXPECT_THROW((void)pjrt::compile_options(1, 2, std::vector<std::int64_t>{0}), tlaloc::Error);
}

}  // namespace

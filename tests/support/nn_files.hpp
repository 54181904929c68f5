// Shared by the tl::nn file tests: a fresh directory per test, and bit-for-bit
// comparison of two Params.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "tlaloc/nn.hpp"

namespace tltest {

inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tlaloc_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void expect_same(const tlaloc::nn::Params& a, const tlaloc::nn::Params& b) {
  ASSERT_EQ(a.names(), b.names());
  for (const auto& [name, t] : a) {
    const tlaloc::Tensor& u = b.at(name);
    EXPECT_EQ(t.dtype(), u.dtype()) << name;
    EXPECT_EQ(t.shape(), u.shape()) << name;
    EXPECT_EQ(std::memcmp(t.raw_data(), u.raw_data(), std::size_t(t.numel()) * tlaloc::itemsize(t.dtype())), 0)
        << name;
  }
}

}  // namespace tltest

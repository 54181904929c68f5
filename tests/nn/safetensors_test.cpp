// The safetensors reader and writer: round trips of every dtype, the exact bytes the
// writer puts out, and one refused file per rule of the format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>

#include "support/nn_files.hpp"
#include "tlaloc/nn.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {
namespace tl = tlaloc;
using tltest::expect_same;
using tltest::fresh_dir;
using tl::nn::Params;

// A safetensors file from its header text and a data buffer of `data_bytes` bytes.
std::vector<std::uint8_t> file_of(std::string_view header, std::size_t data_bytes = 0) {
  std::vector<std::uint8_t> out(8 + header.size() + data_bytes, 0);
  const auto n = std::uint64_t(header.size());
  std::memcpy(out.data(), &n, 8);
  std::copy(header.begin(), header.end(), out.begin() + 8);
  return out;
}

// The reader refuses `bytes` with a ValueError whose message contains `problem`.
void expect_refused(const std::vector<std::uint8_t>& bytes, const std::string& problem) {
  try {
    tl::nn::from_safetensors(bytes, "test.safetensors");
    ADD_FAILURE() << "accepted; expected: " << problem;
  } catch (const tl::ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tl::nn::from_safetensors: test.safetensors: "), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
}

Params every_dtype() {
  Params p;
  const tl::Tensor base = tl::tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  for (tl::DType t : tl::all_dtypes) p.set(std::string("x.") + std::string(tl::dtype_name(t)), base.astype(t));
  for (tl::DType t : {tl::DType::f8e5m2, tl::DType::f8e4m3fn})  // the format's F8_E5M2 and F8_E4M3
    p.set(std::string("x.") + std::string(tl::dtype_name(t)), base.astype(t));
  p.set("scalar", tl::scalar_tensor(3.5, tl::DType::f64));
  p.set("empty", tl::zeros({0, 4}));
  return p;
}



TEST(Safetensors, RoundTripsEveryDTypeInOrder) {
  const Params p = every_dtype();
  const tl::nn::Metadata meta{{"purpose", "test"}, {"unicode", "\xc3\xb1\xe2\x86\x92\xe2\x9c\x93"}};
  const auto bytes = tl::nn::to_safetensors(p, meta);
  const tl::nn::SafeTensors back = tl::nn::from_safetensors(bytes);
  expect_same(p, back.tensors);
  EXPECT_EQ(back.metadata, meta);
}

TEST(Safetensors, WritesTheReferenceLayout) {
  const Params p{{"w", tl::tensor<float>({1, 2}, {2})}, {"b", tl::tensor<std::int32_t>({7}, {})}};
  const auto bytes = tl::nn::to_safetensors(p, {{"k", "v"}});
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);  // the data starts 8-byte aligned
  ASSERT_EQ(bytes.size(), 8 + n + 12);
  std::string header(bytes.begin() + 8, bytes.begin() + 8 + std::ptrdiff_t(n));
  const std::string json =
      R"({"__metadata__":{"k":"v"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"I32","shape":[],"data_offsets":[8,12]}})";
  EXPECT_EQ(header.substr(0, json.size()), json);
  EXPECT_EQ(header.substr(json.size()), std::string(header.size() - json.size(), ' '));  // padding: spaces
  float w[2];
  std::memcpy(w, bytes.data() + 8 + n, 8);
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 2.0f);
}

TEST(Safetensors, EmptyParamsGiveAnEmptyObject) {
  const auto bytes = tl::nn::to_safetensors(Params{});
  EXPECT_EQ(bytes.size(), 16u);  // "{}" padded to 8
  const auto back = tl::nn::from_safetensors(bytes);
  EXPECT_TRUE(back.tensors.empty());
  EXPECT_TRUE(back.metadata.empty());
}

TEST(Safetensors, ReadsEntriesInAnyHeaderOrder) {
  // Other writers sort names; the tensors come back in the order of their bytes.
  const auto bytes = file_of(R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                             R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                             2);
  const auto back = tl::nn::from_safetensors(bytes);
  EXPECT_EQ(back.tensors.names(), (std::vector<std::string>{"a", "b"}));
}

TEST(Safetensors, RefusesShortFiles) {
  expect_refused({}, "0 bytes, shorter than the 8-byte header size");
  expect_refused({1, 2, 3, 4, 5}, "5 bytes, shorter than the 8-byte header size");
}

TEST(Safetensors, RefusesHeaderSizes) {
  auto bytes = file_of("{}");
  bytes[0] = 200;
  expect_refused(bytes, "the header size 200 runs past the end of the file (10 bytes)");
  const std::uint64_t huge = 100'000'001;
  std::memcpy(bytes.data(), &huge, 8);
  expect_refused(bytes, "the header size 100000001 is over the limit of 100000000 bytes");
  const std::uint64_t max = UINT64_MAX;
  std::memcpy(bytes.data(), &max, 8);
  expect_refused(bytes, "is over the limit");
}

TEST(Safetensors, RefusesBadText) {
  expect_refused(file_of("{\"a\xff\":1}"), "the header is not valid UTF-8 (byte 3 of it)");
  expect_refused(file_of("{\"\xed\xa0\x80\":1}"), "not valid UTF-8");  // a UTF-16 surrogate
  expect_refused(file_of("{\"\xc0\xaf\":1}"), "not valid UTF-8");      // an overlong '/'
  expect_refused(file_of("{\"a\":"), "the header is not valid JSON");
  expect_refused(file_of("{} {}"), "the header is not valid JSON");
  expect_refused(file_of(""), "the header does not begin with '{'");
  expect_refused(file_of("[1, 2]"), "the header does not begin with '{'");
  expect_refused(file_of(" {}"), "the header does not begin with '{'");
  EXPECT_NO_THROW(tl::nn::from_safetensors(file_of("{}\n  ")));  // trailing whitespace is allowed
}

// Nesting is refused while the header is parsed: a message that dumped a value nested
// 100,000 deep would overflow the stack. Sixteen levels pass the check (and fail later).
TEST(Safetensors, RefusesDeepNesting) {
  const auto nested = [](int n) {
    return std::string(std::size_t(n), '[') + std::string(std::size_t(n), ']');
  };
  expect_refused(file_of("{\"__metadata__\": {\"a\": " + nested(100000) + "}}"),
                 "the header nests deeper than 16 levels");
  expect_refused(
      file_of("{\"a\": {\"dtype\": \"F32\", \"shape\": " + nested(100000) + ", \"data_offsets\": [0, 0]}}"),
      "the header nests deeper than 16 levels");
  expect_refused(file_of("{\"__metadata__\": {\"a\": " + nested(14) + "}}"), "__metadata__ entry 'a' is");
}

TEST(Safetensors, RefusesMalformedEntries) {
  expect_refused(file_of(R"({"a":3})"), "tensor 'a': the entry is number, not an object");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1]}})"), "tensor 'a': the entry has no 'data_offsets'");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", 4),
                 "tensor 'a': unknown field 'x'");
  expect_refused(file_of(R"({"a":{"dtype":5,"shape":[1],"data_offsets":[0,4]}})", 4), "dtype is 5, not a string");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":3,"data_offsets":[0,4]}})", 4), "shape is 3, not an array");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
                 "shape holds -1, not a non-negative integer");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", 4),
                 "shape holds 1.0, not a non-negative integer");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4),
                 "data_offsets is [0], not [begin, end]");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4),
                 "data_offsets [4, 0] end before they begin");
  expect_refused(file_of(R"({"__metadata__":[1]})"), "__metadata__ is array, not an object");
  expect_refused(file_of(R"({"__metadata__":{"k":1}})"), "__metadata__ entry 'k' is 1, not a string");
}

TEST(Safetensors, RefusesUnknownDTypes) {
  expect_refused(file_of(R"({"a":{"dtype":"Q4_0","shape":[1],"data_offsets":[0,1]}})", 1),
                 "tensor 'a': unknown dtype 'Q4_0'");
  expect_refused(file_of(R"({"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}})", 4), "unknown dtype 'f32'");
}

TEST(Safetensors, RefusesOffsetsThatDoNotTileTheData) {
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                         12),
                 "tensor 'b' at bytes [4, 12] overlaps tensor 'a' ending at 8");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
                         20),
                 "a gap of 4 bytes before tensor 'b' at bytes [12, 20]");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                 "a gap of 4 bytes before tensor 'a'");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4),
                 "tensor 'a' at bytes [0, 8] runs past the end of the data (4 bytes)");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12),
                 "4 trailing bytes after the last tensor");
  expect_refused(file_of("{}", 1), "1 trailing bytes after the last tensor");
}

TEST(Safetensors, RefusesDuplicateNames) {
  expect_refused(file_of(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                         2),
                 "the header has the key 'a' twice");
  expect_refused(file_of(R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
                 "the header has the key 'dtype' twice in one entry");
  expect_refused(file_of(R"({"__metadata__":{"k":"1","k":"2"}})"), "the header has the key 'k' twice");
}

TEST(Safetensors, RefusesSizesThatOverflowOrDisagree) {
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,0]}})"),
                 "tensor 'a': shape [4611686018427387904,8] has more bytes than 64 bits count");
  expect_refused(file_of(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,0]}})"),
                 "has more bytes than 64 bits count");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
                 "tensor 'a': F32 [3] takes 12 bytes, but data_offsets [0, 8] hold 8");
  expect_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}})", 4),
                 "takes 4 bytes, but data_offsets [0, 18446744073709551615] hold");
}

TEST(Safetensors, RefusesBoolBytesOtherThanZeroAndOne) {
  auto bytes = file_of(R"({"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2);
  bytes[bytes.size() - 1] = 2;
  expect_refused(bytes, "tensor 'a' (BOOL) holds the byte 2 at element 1");
}

// Truncations and corruptions of a valid file load or give a tl::Error: never a
// crash, a hang or another exception.
TEST(Safetensors, DamagedFilesGiveErrorsNotCrashes) {
  const auto good = tl::nn::to_safetensors(every_dtype(), {{"k", "v"}});
  int refused = 0;
  for (std::size_t n = 0; n < good.size(); ++n) {
    std::vector<std::uint8_t> cut(good.begin(), good.begin() + std::ptrdiff_t(n));
    EXPECT_THROW(tl::nn::from_safetensors(cut), tl::Error) << n;
  }
  std::mt19937 rng(6);
  for (int i = 0; i < 3000; ++i) {
    auto bad = good;
    const int flips = 1 + int(rng() % 3);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = std::uint8_t(rng());
    try {
      tl::nn::from_safetensors(bad);
    } catch (const tl::Error&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

TEST(Safetensors, RefusesWhatItCannotWrite) {
  EXPECT_THROW(tl::nn::to_safetensors(Params{{"x", tl::Tensor()}}), tl::ValueError);
  EXPECT_THROW(tl::nn::to_safetensors(Params{{"x", tl::zeros({1}, tl::DType::i4)}}), tl::DTypeError);
  EXPECT_THROW(tl::nn::to_safetensors(Params{{"__metadata__", tl::zeros({1})}}), tl::ValueError);
  EXPECT_THROW(tl::nn::to_safetensors(Params{{"bad\xff", tl::zeros({1})}}), tl::ValueError);
  EXPECT_THROW(tl::nn::to_safetensors(Params{}, {{"k", "\xc3"}}), tl::ValueError);
}

TEST(Safetensors, RefusesTracedValues) {
  // Inside tl::grad the argument is symbolic: there are no bytes to write.
  auto f = [](const tl::Tensor& x) {
    tl::nn::to_safetensors(Params{{"x", x}});
    return tl::sum(x);
  };
  try {
    tl::grad(f)(tl::ones({2}));
    ADD_FAILURE();
  } catch (const tl::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'x' is a traced value"), std::string::npos) << e.what();
  }
}

TEST(Safetensors, SavesAndLoadsFiles) {
  const auto dir = fresh_dir("safetensors_files");
  const auto path = dir / "p.safetensors";
  const Params p = every_dtype();
  tl::nn::save_safetensors(path, p, {{"a", "b"}});
  const auto back = tl::nn::load_safetensors(path);
  expect_same(p, back.tensors);
  EXPECT_EQ(back.metadata, (tl::nn::Metadata{{"a", "b"}}));
  // The file is exactly the in-memory form, and no temporary file is left beside it.
  EXPECT_EQ(std::filesystem::file_size(path), tl::nn::to_safetensors(p, {{"a", "b"}}).size());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
}

TEST(Safetensors, FileErrorsNameTheFile) {
  const auto dir = fresh_dir("safetensors_errors");
  try {
    tl::nn::load_safetensors(dir / "missing.safetensors");
    ADD_FAILURE();
  } catch (const tl::nn::IOError& e) {
    EXPECT_NE(std::string(e.what()).find("tl::nn::load_safetensors: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing.safetensors: cannot open"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tl::nn::save_safetensors(dir / "no" / "such" / "dir.safetensors", Params{}), tl::nn::IOError);
  {
    std::FILE* f = std::fopen((dir / "short.safetensors").c_str(), "wb");
    std::fputs("abc", f);
    std::fclose(f);
  }
  try {
    tl::nn::load_safetensors(dir / "short.safetensors");
    ADD_FAILURE();
  } catch (const tl::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("short.safetensors: 3 bytes, shorter than the 8-byte header size"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

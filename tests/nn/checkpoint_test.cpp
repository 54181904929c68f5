// Checkpoints: round trips, validation against the expected parameters, and the
// atomic write: a writer killed mid-write leaves the previous checkpoint whole.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/nn_files.hpp"
#include "tlaloc/nn.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {
namespace tl = tlaloc;
using tltest::expect_same;
using tltest::fresh_dir;
using tl::nn::Params;


std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

Params model() {
  return Params{{"layers.0.weight", tl::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})},
                {"layers.0.bias", tl::tensor<float>({0.5f, -0.5f}, {2})}};
}
Params optim() {
  return Params{{"step", tl::scalar_tensor(3, tl::DType::i64)},
                {"m.layers.0.weight", tl::full({2, 3}, 0.25, tl::DType::f32)},
                {"m.layers.0.bias", tl::zeros({2})}};
}


TEST(Checkpoint, RoundTrips) {
  const auto dir = fresh_dir("ckpt_roundtrip");
  const auto path = dir / "c.safetensors";
  tl::nn::save_checkpoint(path, model(), optim(), 10, {{"run", "a"}});
  const tl::nn::Checkpoint c = tl::nn::load_checkpoint(path);
  expect_same(model(), c.model);
  expect_same(optim(), c.optimizer_state);
  EXPECT_EQ(c.step, 10);
  EXPECT_EQ(c.metadata, (tl::nn::Metadata{{"run", "a"}}));
  // It is a plain safetensors file, with the prefixes and the reserved metadata.
  const auto st = tl::nn::load_safetensors(path);
  EXPECT_EQ(st.tensors.names().front(), "model.layers.0.weight");
  EXPECT_TRUE(st.tensors.contains("optim.m.layers.0.bias"));
  EXPECT_EQ(st.metadata.at("tlaloc.step"), "10");
  // Saving again replaces it.
  tl::nn::save_checkpoint(path, model(), optim(), -1);
  EXPECT_EQ(tl::nn::load_checkpoint(path).step, -1);
  std::filesystem::remove_all(dir);
}

TEST(Checkpoint, ReservedMetadataKeysAreRefused) {
  const auto dir = fresh_dir("ckpt_reserved");
  EXPECT_THROW(tl::nn::save_checkpoint(dir / "c.safetensors", model(), optim(), 1, {{"tlaloc.step", "2"}}),
               tl::ValueError);
  EXPECT_FALSE(std::filesystem::exists(dir / "c.safetensors"));
  std::filesystem::remove_all(dir);
}

TEST(Checkpoint, OtherSafetensorsFilesAreNotCheckpoints) {
  const auto dir = fresh_dir("ckpt_other");
  tl::nn::save_safetensors(dir / "p.safetensors", model());
  EXPECT_THROW(tl::nn::load_checkpoint(dir / "p.safetensors"), tl::ValueError);
  tl::nn::save_safetensors(dir / "q.safetensors", model(), {{"tlaloc.format", "checkpoint/1"}, {"tlaloc.step", "1"}});
  try {
    tl::nn::load_checkpoint(dir / "q.safetensors");
    ADD_FAILURE();
  } catch (const tl::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'layers.0.weight' is neither 'model.' nor 'optim.'"),
              std::string::npos)
        << e.what();
  }
  tl::nn::save_safetensors(dir / "r.safetensors", Params{}, {{"tlaloc.format", "checkpoint/1"}, {"tlaloc.step", "1x"}});
  EXPECT_THROW(tl::nn::load_checkpoint(dir / "r.safetensors"), tl::ValueError);
  std::filesystem::remove_all(dir);
}

TEST(Checkpoint, ValidatesAgainstTheExpectedParameters) {
  const auto dir = fresh_dir("ckpt_expected");
  const auto path = dir / "c.safetensors";
  tl::nn::save_checkpoint(path, model(), optim(), 4);
  // Matching parameters in another order come back in that order.
  const Params reordered{{"layers.0.bias", tl::zeros({2})}, {"layers.0.weight", tl::zeros({2, 3})}};
  const auto c = tl::nn::load_checkpoint(path, reordered, optim());
  EXPECT_EQ(c.model.names(), reordered.names());
  EXPECT_EQ(c.model.at("layers.0.bias").to_vector<float>(), (std::vector<float>{0.5f, -0.5f}));

  auto message = [&](const Params& m, const Params& o) -> std::string {
    try {
      tl::nn::load_checkpoint(path, m, o);
    } catch (const tl::Error& e) {
      return e.what();
    }
    return "accepted";
  };
  Params extra = model();
  extra.set("layers.1.weight", tl::zeros({1}));
  EXPECT_NE(message(extra, optim()).find("the model parameter does not match: missing [layers.1.weight], unexpected []"),
            std::string::npos);
  EXPECT_NE(message(model(), Params{}).find("the optimizer state does not match: missing [], unexpected [step, "),
            std::string::npos);
  Params wide = model();
  wide.set("layers.0.bias", tl::zeros({3}));
  EXPECT_THROW(tl::nn::load_checkpoint(path, wide, optim()), tl::ShapeError);
  EXPECT_NE(message(wide, optim()).find("model parameter 'layers.0.bias' has shape [2] in the file but [3] is expected"),
            std::string::npos);
  Params doubled = model();
  doubled.set("layers.0.bias", tl::zeros({2}, tl::DType::f64));
  EXPECT_THROW(tl::nn::load_checkpoint(path, doubled, optim()), tl::DTypeError);
  std::filesystem::remove_all(dir);
}

// A model of many tensors (the writer issues one write per tensor), all filled
// with `value`: big enough that writing it takes a while.
Params big_model(float value) {
  Params p;
  for (int i = 0; i < 64; ++i) p.set(fmt::format("w{}", i), tl::full({256 * 1024}, value, tl::DType::f32));
  return p;
}

std::vector<std::filesystem::path> leftovers(const std::filesystem::path& dir, const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename() != path.filename()) out.push_back(e.path());
  return out;
}

// A child writes a new checkpoint over an old one and is SIGKILLed as soon as its
// temporary file has data: the old file must still load, bit-identical, and the
// temporary file left behind must be partial (the kill did land mid-write).
TEST(Checkpoint, KilledWriterLeavesThePreviousCheckpoint) {
  const auto dir = fresh_dir("ckpt_kill");
  const auto path = dir / "c.safetensors";
  tl::nn::save_checkpoint(path, big_model(1.0f), Params{}, 1);
  const std::string before = bytes_of(path);
  const Params next = big_model(2.0f);  // made before fork: the child only writes
  bool caught_mid_write = false;
  for (int attempt = 0; attempt < 20 && !caught_mid_write; ++attempt) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      try {
        tl::nn::save_checkpoint(path, next, Params{}, 2);
      } catch (...) {
      }
      ::_exit(0);
    }
    // Watch for the temporary file to get data; give up after 5 s or when the child is done.
    int status = 0;
    bool exited = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (std::uintmax_t seen = 0; seen == 0 && !exited && std::chrono::steady_clock::now() < deadline;) {
      for (const auto& p : leftovers(dir, path)) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(p, ec);
        if (!ec && size > 0) seen = size;
      }
      exited = seen == 0 && ::waitpid(child, &status, WNOHANG) == child;
    }
    if (!exited) {
      ::kill(child, SIGKILL);
      ASSERT_EQ(::waitpid(child, &status, 0), child);
    }
    const auto left = leftovers(dir, path);
    if (WIFSIGNALED(status) && left.size() == 1 && std::filesystem::file_size(left[0]) < before.size()) {
      caught_mid_write = true;
      // Nothing partial under the final name: the previous checkpoint, bit for bit.
      EXPECT_TRUE(bytes_of(path) == before);  // (not EXPECT_EQ: it would print 64 MB)
      const auto c = tl::nn::load_checkpoint(path, big_model(0.0f), Params{});
      EXPECT_EQ(c.step, 1);
      EXPECT_EQ(c.model.at("w63").to_vector<float>().back(), 1.0f);
    }
    // Whatever the outcome, the final name holds a whole checkpoint (old or new).
    const auto c = tl::nn::load_checkpoint(path);
    EXPECT_TRUE(c.step == 1 || c.step == 2);
    if (c.step == 2) tl::nn::save_checkpoint(path, big_model(1.0f), Params{}, 1);  // start over
    for (const auto& p : leftovers(dir, path)) std::filesystem::remove(p);
  }
  EXPECT_TRUE(caught_mid_write) << "the writer was never caught mid-write in 20 tries";
  std::filesystem::remove_all(dir);
}

// The same crash, deterministic: a file-size limit makes the kernel kill the writer
// (SIGXFSZ) once it has written half the new file.
TEST(Checkpoint, WriterDyingAtHalfTheFileLeavesThePreviousCheckpoint) {
  const auto dir = fresh_dir("ckpt_xfsz");
  const auto path = dir / "c.safetensors";
  tl::nn::save_checkpoint(path, big_model(1.0f), Params{}, 1);
  const std::string before = bytes_of(path);
  const Params next = big_model(2.0f);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{before.size() / 2, before.size() / 2}, no_core{0, 0};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::setrlimit(RLIMIT_CORE, &no_core);  // no core file from the signal
    try {
      tl::nn::save_checkpoint(path, next, Params{}, 2);
    } catch (...) {
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
  EXPECT_TRUE(bytes_of(path) == before);
  const auto left = leftovers(dir, path);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(std::filesystem::file_size(left[0]), before.size() / 2);
  EXPECT_EQ(tl::nn::load_checkpoint(path).step, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace

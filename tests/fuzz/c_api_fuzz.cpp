// libFuzzer target for the C API's load path (tlaloc_model_load). The input holds an
// artifact's three files, manifest.json, weights.safetensors and one program,
// separated by kSeparator; they are written into a directory and the manifest's
// hashes made to match them, so that the checks after the hashes are reached. Loading
// must give a model or NULL with an error message; a crash or a sanitizer report is a
// finding.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io/sha256.hpp"
#include "serve/manifest.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/serve.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kSeparator = "\n--tlaloc-fuzz-file--\n";

std::vector<std::string> split(std::string_view all) {
  std::vector<std::string> parts;
  for (std::size_t at; (at = all.find(kSeparator)) != std::string_view::npos && parts.size() < 2;) {
    parts.emplace_back(all.substr(0, at));
    all.remove_prefix(at + kSeparator.size());
  }
  parts.emplace_back(all);
  parts.resize(3);
  return parts;
}

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// The manifest with every program path leading to the one program, and its files'
// hashes and content hash made to match, where the loader reads it as a manifest
// (which also bounds its nesting); otherwise as it came.
std::string rehashed(const std::string& manifest, const std::string& weights, const std::string& program) {
  try {
    (void)tlaloc::serve::detail::manifest_from_json(manifest, "m");
    json j = json::parse(manifest);
    j.at("weights").at("sha256") = tlaloc::io::sha256_hex(weights);
    for (json& e : j.at("entry_points")) {
      e.at("program") = "programs/main.mlir";
      e.at("sha256") = tlaloc::io::sha256_hex(program);
    }
    std::string text = j.dump();
    j["content_hash"] =
        tlaloc::serve::detail::content_hash(tlaloc::serve::detail::manifest_from_json(text, "m"));
    return j.dump();
  } catch (const std::exception&) {
    return manifest;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path dir = fs::temp_directory_path() / ("tlaloc_c_api_fuzz_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "programs");
  const std::vector<std::string> files = split(std::string_view(reinterpret_cast<const char*>(data), size));
  write(dir / "weights.safetensors", files[1]);
  write(dir / "programs" / "main.mlir", files[2]);
  write(dir / "manifest.json", rehashed(files[0], files[1], files[2]));
  tlaloc_model* m = tlaloc_model_load(dir.c_str());
  if (m == nullptr && tlaloc_last_error()[0] == '\0') std::abort();  // refused without a word
  tlaloc_model_free(m);
  return 0;
}

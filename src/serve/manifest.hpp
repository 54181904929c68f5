// manifest.json of an artifact (docs/SERVING.md): reading with every field checked,
// writing, and the content hash that covers programs and weights.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tlaloc/serve.hpp"

namespace tlaloc::serve::detail {

struct HashedFile {
  std::string path;  // relative to the artifact directory
  std::string sha256;
};

// A bounded entry point's program for one bucket: a size per dimension.
struct BucketProgram {
  std::vector<std::int64_t> sizes;
  HashedFile file;
};

struct Manifest {
  int version = tlaloc::serve::schema_version;
  HashedFile weights;
  std::vector<EntryPoint> entries;
  std::vector<HashedFile> programs;  // one per entry, in the same order (at the bounds for a bounded one)
  // Per entry, a bounded one's smaller buckets, in the order of the ladders (the first
  // dimension's size changing slowest); empty for an exact one.
  std::vector<std::vector<BucketProgram>> buckets;
  std::string content_hash;
};

// The SHA-256 that names what the artifact runs (docs/SERVING.md): version 2 covers
// the files' paths and hashes, each entry point's name, bound weights and signature;
// version 1 covered the files only.
std::string content_hash(const Manifest& m);

std::string to_json(const Manifest& m);
// `file` names the manifest in errors (ArtifactError).
Manifest manifest_from_json(const std::string& text, const std::string& file);

// "programs/<entry>.mlir"; entry names are letters, digits, '_' and '-'. A bucket's:
// "programs/<entry>.<dim>-<size>[.<dim>-<size>...].mlir".
std::string program_path(const std::string& entry);
std::string program_path(const std::string& entry, const std::vector<BoundedDim>& dims,
                         const std::vector<std::int64_t>& sizes);
// Every bucket of the dimensions, the first dimension's size changing slowest: the
// last one is at the bounds.
std::vector<std::vector<std::int64_t>> all_buckets(const std::vector<BoundedDim>& dims);
void check_entry_name(const std::string& name, const char* who);

}  // namespace tlaloc::serve::detail

// Replacing a file so that a crash at any point leaves either the old file or the
// new one under its name, never a mix: write a temporary file in the same
// directory, fsync it, rename it over the target, fsync the directory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace tlaloc::io {

// Writes the pieces one after another as the new contents of `path`. Failures throw
// an IOError starting with `who` and naming the file; the temporary file is removed.
void write_file_atomically(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& pieces,
                           std::string_view who);

// The prefix of the temporary files write_file_atomically makes for `path`
// ("." + file name + ".tmp-"), so that leftovers of a crashed writer can be found.
std::string temporary_prefix(const std::filesystem::path& path);

}  // namespace tlaloc::io

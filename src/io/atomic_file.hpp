// Replacing a file, or a directory as a whole, so that a crash at any point leaves
// either the old one or the new one under its name, never a mix: write a temporary
// beside it, fsync it, rename it over the target (exchange it, for a directory),
// fsync the parent directory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace tlaloc::io {

// Writes the pieces one after another as the new contents of `path`. Failures throw
// an IOError starting with `who` and naming the file; the temporary file is removed.
void write_file_atomically(const std::filesystem::path& path, const std::vector<std::span<const std::byte>>& pieces,
                           std::string_view who);

// Replaces the directory `path`: `fill` writes the new contents into a fresh
// directory beside it, which is then exchanged with `path` in one rename (Linux's
// renameat2 with RENAME_EXCHANGE) and the old contents removed. Where the file
// system cannot exchange, two renames leave a moment without `path`, never a mix.
void replace_directory(const std::filesystem::path& path,
                       const std::function<void(const std::filesystem::path& fresh)>& fill,
                       std::string_view who);

// The prefix of the temporaries made for `path` ("." + name + ".tmp-", then the
// writer's process id, '-' and a counter), so that leftovers can be found.
std::string temporary_prefix(const std::filesystem::path& path);

// Removes the temporaries beside `path` that writers killed before they finished
// left behind: those of processes that no longer run. Both writers above call it.
void remove_leftovers(const std::filesystem::path& path);

}  // namespace tlaloc::io

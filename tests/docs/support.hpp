// What the tests written from the docs' C++ blocks (tests/docs/extract.cpp) share.
// It includes no Tlaloc header: each page's snippets bring their own includes, so a
// page that forgets one fails here as it would for a reader.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace doc_test {

// The project's source tree (the pages quote its files).
std::filesystem::path source_dir();

// A directory of its own for one test, emptied first, under the working directory.
std::filesystem::path scratch_dir(std::string_view name);

// Fails the test unless the lines of `quoted`, compared without leading and trailing
// blanks, occur in that order on consecutive lines of `file` (relative to the project).
// A quoted line "// (...)" stands for any number of lines the page leaves out.
void expect_excerpt(std::string_view page, int line, std::string_view file, std::string_view quoted);

// Runs `script` with Debian's python3, the installed Python package on its path, in the
// working directory; fails the test with its output unless it exits 0. Skipped where the
// library is built with a sanitizer: an interpreter built without one cannot load it.
void run_python(std::string_view page, int line, std::string_view script);

}  // namespace doc_test

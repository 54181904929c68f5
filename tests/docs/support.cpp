#include "support.hpp"

#include <sys/wait.h>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace doc_test {
namespace {

std::string trim(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return "";
  return std::string(s.substr(begin, s.find_last_not_of(" \t") - begin + 1));
}

using Lines = std::vector<std::string>;

Lines trimmed_lines(std::string_view text) {
  Lines lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(trim(line));
  return lines;
}

// A quoted line "// (what is left out)" stands for lines the page leaves out.
bool elision(const std::string& line) { return line.starts_with("// (") && line.ends_with(")"); }

// The runs of quoted lines between elisions.
std::vector<Lines> runs(const Lines& quoted) {
  std::vector<Lines> out(1);
  for (const std::string& line : quoted) {
    if (elision(line))
      out.emplace_back();
    else
      out.back().push_back(line);
  }
  return out;
}

// Where `run` next occurs in `source` at or after `from` (source.size() if nowhere).
std::size_t find_run(const Lines& source, const Lines& run, std::size_t from) {
  for (std::size_t at = from; at + run.size() <= source.size(); ++at)
    if (std::equal(run.begin(), run.end(), source.begin() + static_cast<std::ptrdiff_t>(at))) return at;
  return source.size() + 1;
}

// The first run must start the match; each later run follows the one before, after
// any number of left-out lines (the earliest place leaves the most room for the rest).
bool occurs(const Lines& source, const std::vector<Lines>& parts) {
  for (std::size_t start = 0; start < source.size(); ++start) {
    std::size_t at = find_run(source, parts[0], start);
    if (at > source.size()) return false;
    start = at;
    at += parts[0].size();
    bool all = true;
    for (std::size_t k = 1; k < parts.size() && all; ++k) {
      const std::size_t next = find_run(source, parts[k], at);
      all = next <= source.size();
      at = next + parts[k].size();
    }
    if (all) return true;
  }
  return false;
}

}  // namespace

std::filesystem::path source_dir() { return TLALOC_SOURCE_DIR; }

std::filesystem::path scratch_dir(std::string_view name) {
  const std::filesystem::path dir = std::filesystem::current_path() / "scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void expect_excerpt(std::string_view page, int line, std::string_view file, std::string_view quoted) {
  std::ifstream in(source_dir() / file);
  ASSERT_TRUE(in) << page << ":" << line << " quotes " << file << ", which does not exist";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<Lines> parts = runs(trimmed_lines(quoted));
  ASSERT_FALSE(parts[0].empty()) << page << ":" << line << ": an excerpt must start with a quoted line";
  if (occurs(trimmed_lines(text), parts)) return;
  ADD_FAILURE() << page << ":" << line << " quotes lines no longer in " << file << " (update the page):\n"
                << quoted;
}

void run_python(std::string_view page, int line, std::string_view script) {
#if TLALOC_SANITIZED
  (void)script;
  GTEST_SKIP() << page << ":" << line << ": python3 cannot load a library built with a sanitizer";
#else
  std::string name(page);
  for (char& c : name)
    if (c == '/' || c == '.') c = '_';
  const std::filesystem::path dir = scratch_dir(name + "_" + std::to_string(line));
  const std::filesystem::path file = dir / (std::string(page.substr(page.rfind('/') + 1)) + ".py");
  std::ofstream(file) << script;
  const std::filesystem::path log = dir / "output.txt";
  const std::string command = "PYTHONPATH='" TLALOC_PYTHONPATH
                              "' PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 '" +
                              file.string() + "' >'" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << page << ":" << line << ": the Python block failed (line numbers are the page's):\n"
      << output;
#endif
}

}  // namespace doc_test

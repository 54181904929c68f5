#include "files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tlaloc_grad {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool write_if_changed(const std::string& path, const std::string& text) {
  if (read_text(path) == text) return true;
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
  if (!(std::ofstream(tmp, std::ios::binary) << text)) return false;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

}  // namespace tlaloc_grad

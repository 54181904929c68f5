// The registry the printed table files add their functions to (test code around
// the printed functions, which themselves use only the public API).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include <tlaloc/tlaloc.hpp>

namespace cppgen_table {

using Printed = std::vector<tlaloc::Tensor> (*)(std::span<const tlaloc::Tensor>);

inline std::map<std::string, Printed>& printed() {
  static std::map<std::string, Printed> m;
  return m;
}
inline bool add(std::initializer_list<std::pair<const char*, Printed>> fns) {
  for (const auto& [name, fn] : fns) printed()[name] = fn;
  return true;
}
inline std::vector<tlaloc::Tensor> as_vector(tlaloc::Tensor t) { return {std::move(t)}; }
inline std::vector<tlaloc::Tensor> as_vector(std::vector<tlaloc::Tensor> v) { return v; }

}  // namespace cppgen_table

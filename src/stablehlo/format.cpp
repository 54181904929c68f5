// The table of pretty formats and the spelling -> op lookup.
#include <fmt/format.h>

#include <map>
#include <mutex>

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

std::map<std::string, FormatFns, std::less<>>& formats() {
  static std::map<std::string, FormatFns, std::less<>> table;
  return table;
}

}  // namespace

Format::Format(const char* name, Print print, Parse parse) {
  if (!formats().emplace(name, FormatFns{std::move(print), std::move(parse)}).second)
    throw Error(fmt::format("StableHLO format '{}' is registered twice", name));
}

const FormatFns* find_format(std::string_view name) {
  auto it = formats().find(name);
  return it == formats().end() ? nullptr : &it->second;
}

const detail::OpDef* op_for_spelling(std::string_view name) {
  static const std::map<std::string, const detail::OpDef*, std::less<>> table = [] {
    std::map<std::string, const detail::OpDef*, std::less<>> t;
    for (const detail::OpDef* op : detail::all_ops()) {
      const StableHloSpelling* s = op->stablehlo();
      if (s == nullptr) continue;
      if (!t.emplace(s->name, op).second)
        throw Error(fmt::format("two ops claim the StableHLO spelling {}", s->name));
      // `func.call` is also written `call`, as JAX prints it.
      if (s->name.rfind("func.", 0) == 0) t.emplace(s->name.substr(5), op);
    }
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

}  // namespace tlaloc::stablehlo

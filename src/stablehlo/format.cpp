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

Spelled find_spelling(std::string_view name) {
  static const std::map<std::string, Spelled, std::less<>> table = [] {
    std::map<std::string, Spelled, std::less<>> t;
    for (const detail::OpDef* op : detail::all_ops()) {
      for (const StableHloSpelling* s : {op->stablehlo(), op->chlo()}) {
        if (s == nullptr) continue;
        if (!t.emplace(s->name, Spelled{op, s}).second)
          throw Error(fmt::format("two ops claim the spelling {}", s->name));
        // `func.call` is also written `call`, as JAX prints it.
        if (s->name.rfind("func.", 0) == 0) t.emplace(s->name.substr(5), Spelled{op, s});
      }
    }
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? Spelled{} : it->second;
}

const detail::OpDef* op_for_spelling(std::string_view name) { return find_spelling(name).def; }

}  // namespace tlaloc::stablehlo

#include "ir/ir.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/check.hpp"

namespace tlaloc::ir {

bool is_static(const TensorType& t) {
  if (t.unknown) return false;
  for (std::int64_t d : t.shape)
    if (d == kDynamic) return false;
  return true;
}

std::string type_string(const TensorType& t) {
  if (t.unknown) return "?";
  if (t.token) return "token";
  std::string dims;
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (i) dims += ',';
    dims += t.shape[i] == kDynamic ? std::string("?") : std::to_string(t.shape[i]);
  }
  return fmt::format("{}[{}]", dtype_name(t.dtype), dims);
}

ValueId Function::add_value(TensorType t) {
  types_.push_back(std::move(t));
  return ValueId(types_.size() - 1);
}

std::vector<TensorType> Function::param_types() const {
  std::vector<TensorType> out;
  for (ValueId v : body.args) out.push_back(type(v));
  return out;
}

std::vector<TensorType> Function::result_types() const {
  std::vector<TensorType> out;
  for (ValueId v : body.results) out.push_back(type(v));
  return out;
}

const Function* Module::find(std::string_view name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const Function& Module::entry(std::string_view name) const {
  if (!name.empty()) {
    if (const Function* f = find(name)) return *f;
    throw ValueError(fmt::format("the module has no function @{}", name));
  }
  if (const Function* f = find("main")) return *f;
  const Function* only = nullptr;
  int publics = 0;
  for (const Function& f : functions) {
    if (f.is_public) {
      only = &f;
      ++publics;
    }
  }
  if (publics == 1) return *only;
  throw ValueError(
      fmt::format("the module has no @main and {} public functions; name the entry point", publics));
}

namespace {
void collect_free(const Region& r, std::vector<ValueId>& defined, std::vector<ValueId>& free) {
  const std::size_t mark = defined.size();
  defined.insert(defined.end(), r.args.begin(), r.args.end());
  const auto use = [&](ValueId v) {
    if (std::find(defined.begin(), defined.end(), v) == defined.end() &&
        std::find(free.begin(), free.end(), v) == free.end())
      free.push_back(v);
  };
  for (const Op& op : r.ops) {
    for (ValueId v : op.operands) use(v);
    for (const Region& inner : op.regions) collect_free(inner, defined, free);
    defined.insert(defined.end(), op.results.begin(), op.results.end());
  }
  for (ValueId v : r.results) use(v);
  defined.resize(mark);
}
}  // namespace

std::vector<ValueId> free_values(const Op& op) {
  std::vector<ValueId> defined, free;
  for (const Region& r : op.regions) collect_free(r, defined, free);
  return free;
}

std::string_view binary_body(const Region& r) {
  if (r.args.size() != 2 || r.ops.size() != 1 || r.results.size() != 1) return {};
  const Op& op = r.ops[0];
  if (op.results.size() != 1 || op.results[0] != r.results[0] || op.operands.size() != 2) return {};
  if (op.operands[0] == r.args[0] && op.operands[1] == r.args[1]) return op.name();
  static constexpr std::string_view commutative[] = {
      "add", "mul", "maximum", "minimum", "and", "or", "xor", "logical_and", "logical_or", "logical_xor"};
  if (op.operands[0] == r.args[1] && op.operands[1] == r.args[0])
    for (std::string_view c : commutative)
      if (op.name() == c) return op.name();
  return {};
}

}  // namespace tlaloc::ir

#include "rules.hpp"

#include "engine_rules.hpp"
#include "ir/op.hpp"
#include "rules_text.hpp"
#include "shapes.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>

namespace tlaloc_grad {

std::string paren(const std::string& s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (depth == 0 && !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                             c == ':' || (i == 0 && c == '-') || c == '\x01' || c == '\x02'))
      return "(" + s + ")";
  }
  return s;
}

std::string comma_list(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}
std::string braced(const std::vector<std::string>& items) { return "{" + comma_list(items) + "}"; }
std::string library_function(std::string_view fn) {
  const bool helper = fn.ends_with("_backward") || fn.ends_with("_jvp") || fn == "split_offsets";
  return (helper ? "tl::derivatives::" : "tl::") + std::string(fn);
}
std::string call(const std::string& fn, const std::vector<std::string>& args) {
  return library_function(fn) + "(" + comma_list(args) + ")";
}
std::string spell_call(const Rule& r, const Names& n) {
  std::vector<std::string> args = n.args;
  if (r.op != nullptr)
    for (const std::size_t k : r.op->public_call().by_shape) args.at(k) = shape_of(paren(args.at(k)));
  // An op of any number of operands: its function takes the tensors as one list.
  if (r.op != nullptr && r.op->arity() == -1) {
    const auto tensors = std::size_t(std::count(n.tensor.begin(), n.tensor.end(), true));
    args.erase(args.begin(), args.begin() + std::ptrdiff_t(tensors));
    args.insert(args.begin(), braced({n.args.begin(), n.args.begin() + std::ptrdiff_t(tensors)}));
  }
  return call(r.name, args);
}
std::string shape_of(const std::string& t) { return t + ".shape()"; }
std::string in_dtype_of(const std::string& share, const std::string& t) {
  return share + ".astype(" + t + ".dtype())";
}
std::string linear_jvp(const Rule& r, const Names& n, const std::vector<std::string>& t) {
  if (t[0].empty()) return "";
  std::vector<std::string> args = n.args;
  args[0] = t[0];
  return call(r.name, args);
}
std::string jointly_linear_jvp(const Rule& r, const Names& n, const std::vector<std::string>& t,
                               const std::vector<std::size_t>& linear) {
  std::vector<std::string> args = n.args;
  for (std::size_t i : linear) args[i] = t[i].empty() ? call("zeros_like", {n.args[i]}) : t[i];
  return call(r.name, args);
}

namespace {

// `x.fn(args...)`: a method of the first operand.
std::string spell_method(const Rule& r, const Names& n) {
  return paren(n.args[0]) + "." + r.name + "(" + comma_list({n.args.begin() + 1, n.args.end()}) + ")";
}

// `a + b` or `-a`: the op's C++ operator.
std::string spell_operator(const Rule& r, const Names& n) {
  const std::string& symbol = r.op->public_call().symbol;
  if (n.args.size() == 1) return symbol + paren(n.args[0]);
  return paren(n.args[0]) + " " + symbol + " " + paren(n.args[1]);
}

}  // namespace

bool engine_elementwise(const Rule& r) { return r.op != nullptr && r.op->is_elementwise(); }
bool from_engine(const Rule& r) { return r.op != nullptr; }

namespace {
// An op whose result does not move with its operands (floor, zeros_like), or is held
// constant by derivatives (stop_gradient).
bool constant(const tlaloc::detail::OpDef& def) {
  return def.has_no_derivative() || def.is_constant_to_derivatives();
}
}  // namespace

namespace {

RuleTable make_rules() {
  RuleTable t;
  const auto add = [&t](Rule r) { t.emplace(r.name, std::move(r)); };
  // prod's and cumprod's derivatives are library functions, which the engine's rules
  // call as well.
  Rule product{"prod", spell_call, [](const Rule&, std::size_t i, const Names& n) {
                 std::vector<std::string> args{n.g};
                 args.insert(args.end(), n.args.begin(), n.args.end());
                 return i == 0 ? call("prod_backward", args) : "";
               }};
  product.jvp = [](const Rule&, const Names& n, const std::vector<std::string>& tg) {
    std::vector<std::string> args{tg[0]};
    args.insert(args.end(), n.args.begin(), n.args.end());
    return call("prod_jvp", args);
  };
  add(std::move(product));
  Rule running{"cumprod", spell_call, [](const Rule&, std::size_t i, const Names& n) {
                 return i == 0 ? call("cumprod_backward", {n.g, n.args[0], n.y, n.args[1]}) : "";
               }};
  running.jvp = [](const Rule&, const Names& n, const std::vector<std::string>& tg) {
    return call("cumprod_jvp", {tg[0], n.args[0], n.y, n.args[1]});
  };
  add(std::move(running));
  // prod's and cumprod's shares are not linear in x: their derivatives are the
  // library's forward mode over them (prod_backward_jvp, cumprod_backward_jvp), where
  // an undefined tangent is zero.
  for (const char* product_share : {"prod_backward", "cumprod_backward"}) {
    Rule share{product_share, spell_call, nullptr};
    share.jvp = [](const Rule& r, const Names& n, const std::vector<std::string>& tg) {
      const std::size_t tensors = r.name == "prod_backward" ? 2 : 3;
      if (std::all_of(tg.begin(), tg.begin() + std::ptrdiff_t(tensors),
                      [](const std::string& t) { return t.empty(); }))
        return std::string();
      std::vector<std::string> args;
      for (std::size_t i = 0; i < tensors; ++i) {
        args.push_back(n.args[i]);
        args.push_back(tg[i].empty() ? "tl::Tensor()" : tg[i]);
      }
      args.insert(args.end(), n.args.begin() + std::ptrdiff_t(tensors), n.args.end());
      return call(r.name + "_jvp", args);
    };
    add(std::move(share));
  }
  add_layout_rules(t);
  // Every public function or operator that records one registry op alone, and has a
  // derivative; an operator's rule goes by its op's name.
  for (const tlaloc::detail::OpDef* def : tlaloc::detail::all_ops()) {
    if (constant(*def)) continue;
    const tlaloc::detail::OpDef::PublicCall& pc = def->public_call();
    for (const std::string& fn : pc.names) {
      Rule r{fn, pc.method ? spell_method : spell_call};
      r.op = def;
      add(std::move(r));
    }
    if (pc.symbol.empty()) continue;
    Rule r{def->name(), spell_operator};
    r.op = def;
    t.insert_or_assign(r.name, std::move(r));
  }
  return t;
}

const RuleTable& rules() {
  static const RuleTable table = make_rules();
  return table;
}

}  // namespace

const Rule* find_rule(std::string_view name) {
  const auto it = rules().find(name);
  return it == rules().end() ? nullptr : &it->second;
}

const Rule* find_operator(std::string_view symbol, std::size_t operands) {
  for (const auto& [name, r] : rules())
    if (r.op != nullptr && r.op->public_call().symbol == symbol && r.op->arity() == int(operands)) return &r;
  return nullptr;
}

std::vector<std::string> rule_names() {
  std::vector<std::string> names;
  for (const auto& [name, rule] : rules()) names.push_back(name);
  return names;
}

bool moves_with(std::string_view fn, const std::vector<Arg>& args, std::size_t i) {
  const Rule* r = find_rule(fn);
  if (r == nullptr || r->op == nullptr) return true;
  // The op's own forward rule, given operand i's tangent alone, tells; the answer
  // depends on the arguments as written (the operand a share is of), not on names.
  Names n;
  std::string key(fn);
  for (const Arg& a : args) {
    n.args.push_back(a.is_tensor() ? "x" + std::to_string(n.args.size()) : a.text);
    n.tensor.push_back(a.is_tensor());
    key += '\0' + n.args.back();
  }
  key += '\0' + std::to_string(i);
  static std::map<std::string, bool> known;
  if (const auto it = known.find(key); it != known.end()) return it->second;
  n.y = "y";
  std::vector<std::string> t(args.size());
  t.at(i) = "t";
  bool moves = true;
  try {
    moves = !engine_tangent(*r, n, t).empty();
  } catch (const std::exception&) {
    // A rule that cannot run on these arguments at build time: the operand counts as
    // moving, and the rule's own refusal comes where the tangent is written.
  }
  return known[key] = moves;
}

bool zero_derivative(std::string_view name) {
  const tlaloc::detail::OpDef* def = tlaloc::detail::find_called_as(name);
  return def != nullptr && constant(*def);
}

bool may_pass_on(const Node& s) {
  if (const Rule* r = find_rule(s.fn); r != nullptr && r->op != nullptr)
    return r->op->public_call().passes_on;
  if (s.fn != "pad") return false;
  // A pad whose widths are literals, not all zero, never does.
  if (s.args.size() > 1) {
    const std::string& widths = s.args[1].text;
    if (widths.find_first_not_of("{}, 0123456789") == std::string::npos &&
        widths.find_first_of("123456789") != std::string::npos)
      return false;
  }
  return true;
}

}  // namespace tlaloc_grad

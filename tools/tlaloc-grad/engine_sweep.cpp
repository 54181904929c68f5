// The engine's reverse sweep at build time (engine_sweep.hpp). The body's ops are
// recorded by the library's own public functions on values of unknown type, one
// parameter per tensor the sweep reads (the function's tensors, the results of ops
// nothing differentiates, the scalars written beside a tensor); tl::ad::vjp runs on
// that; each cotangent it sums is written as an assignment to d_<value>, and every
// other op of the sweep inline where it is read (or as a temporary, where it is read
// twice). The forward pass stays the tool's (emit_forward.cpp), which names the
// values the sweep reads.
#include "engine_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "ad/engine.hpp"
#include "core/tensor_impl.hpp"
#include "engine_writer.hpp"
#include "ops/op.hpp"
#include "rules.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;
using tl::Tensor;

// Where the lowering stops: the tool's own sweep writes the gradient.
struct NotYet {};

// An integer literal, as written.
std::optional<std::int64_t> integer(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  const std::size_t digits = s.starts_with("-") ? 1 : 0;
  if (s.size() == digits || s.find_first_not_of("0123456789", digits) != std::string::npos)
    return std::nullopt;
  return std::stoll(s);
}

// A reduction's axes written as literals: none (every axis), `{}`, `{0, -1}` or `1`.
tl::Axes axes_written(const std::vector<Arg>& args) {
  if (args.size() < 2) return {};
  const std::string& t = args[1].text;
  if (const auto one = integer(t)) return tl::Axes(*one);
  if (!t.starts_with("{") || !t.ends_with("}")) throw NotYet{};
  const std::string inside = t.substr(1, t.size() - 2);
  if (inside.find_first_not_of(' ') == std::string::npos) return {};
  std::vector<std::int64_t> axes;
  for (std::size_t at = 0; at <= inside.size();) {
    const std::size_t comma = std::min(inside.find(',', at), inside.size());
    const auto a = integer(inside.substr(at, comma - at));
    if (!a) throw NotYet{};
    axes.push_back(*a);
    at = comma + 1;
  }
  return tl::Axes(axes);
}
bool keepdims_written(const std::vector<Arg>& args) {
  if (args.size() < 3) return false;
  if (args.size() > 3 || (args[2].text != "true" && args[2].text != "false")) throw NotYet{};
  return args[2].text == "true";
}

class Lowering {
 public:
  explicit Lowering(const Program& p) : p_(p), b_(f_) {}

  // f_: the body, its parameters the tensors it reads; each parameter's C++ name.
  void lower() {
    for (std::size_t i = 0; i < p_.params.size(); ++i) {
      const Param& prm = p_.params[i];
      if (prm.list) throw NotYet{};
      if (prm.value < 0) continue;
      const bool w = std::find(p_.wrt.begin(), p_.wrt.end(), i) != p_.wrt.end();
      if (w) wrt_rank[i] = std::size_t(std::count(wrt_.begin(), wrt_.end(), true));
      at_[prm.value] = param(prm.name, of_class(int(i)), w);
    }
    for (const Node& s : p_.body) node(s);
    const auto result = at_.find(p_.result);
    if (result == at_.end() || !p_.values[std::size_t(p_.result)].active) throw NotYet{};
    b_.finish(std::vector<Tensor>{result->second});
  }

  const ir::Function& function() const { return f_; }
  const std::vector<bool>& wrt() const { return wrt_; }
  // For the parameters of f_ (by position): names, kinds and scalars.
  std::vector<Expr> names;
  std::vector<Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>>
      scalars;                                   // a scalar: its text, the tensor beside it
  std::map<ir::ValueId, ValueId> program_value;  // f_'s value -> the program's
  std::map<ir::ValueId, const Node*> node_of;    // f_'s op result -> its node
  // A differentiated parameter's place among them in f_'s order (the vjp's results).
  std::map<std::size_t, std::size_t> wrt_rank;

 private:
  Tensor param(const std::string& name, Kind kind, bool wrt = false) {
    names.push_back({name, 0});
    kinds.push_back(kind);
    wrt_.push_back(wrt);
    return b_.param(tl::detail::unknown_type());
  }

  void node(const Node& s) {
    if (!s.list.empty() || !s.callee.empty() || !s.structured.empty()) throw NotYet{};
    if (s.kind == Node::Kind::scalar) return;  // in the forward pass, which the sweep follows
    if (s.kind != Node::Kind::op) throw NotYet{};
    const Value& v = p_.values[std::size_t(s.result)];
    if (!v.list.empty() || v.undefined || v.maybe_undefined) throw NotYet{};
    // What nothing differentiates is an input of the sweep.
    if (!v.active || zero_derivative(s.fn)) {
      at_[s.result] = param(v.name, {std::nullopt, std::nullopt});
      return;
    }
    const Tensor t = record(s);
    at_[s.result] = t;
    program_value[b_.value_of(t)] = s.result;
    node_of[b_.value_of(t)] = &s;
  }

  Tensor operand(const Arg& a) {
    if (!a.is_tensor()) throw NotYet{};
    const auto it = at_.find(a.value);
    if (it == at_.end()) throw NotYet{};
    return it->second;
  }

  Tensor record(const Node& s) {
    if (s.fn == "sum" || s.fn == "max" || s.fn == "min") {
      const Tensor x = operand(s.args.at(0));
      const tl::Axes axes = axes_written(s.args);
      const bool keepdims = keepdims_written(s.args);
      return s.fn == "sum"   ? tl::sum(x, axes, keepdims)
             : s.fn == "max" ? tl::max(x, axes, keepdims)
                             : tl::min(x, axes, keepdims);
    }
    const Rule* rule = find_rule(s.fn);
    const bool elementwise = rule != nullptr && (rule->partials != 0 || s.fn == "add" || s.fn == "sub" ||
                                                 s.fn == "neg" || s.fn == "where" || s.fn == "select");
    const tl::detail::OpDef* def = tl::detail::find_op(s.fn == "where" ? "select" : s.fn);
    if (!elementwise || def == nullptr) throw NotYet{};
    std::vector<Tensor> in;
    for (std::size_t k = 0; k < s.args.size(); ++k) {
      if (s.args[k].is_tensor()) {
        in.push_back(operand(s.args[k]));
        continue;
      }
      // A scalar beside the other operand of a binary op, which gives it its dtype.
      if (s.args.size() != 2 || !s.args[1 - k].is_tensor()) throw NotYet{};
      const Tensor scalar = param(s.args[k].text, {});
      scalars[b_.value_of(scalar)] = {s.args[k].text, b_.value_of(operand(s.args[1 - k]))};
      in.push_back(scalar);
    }
    return tl::detail::call1(*def, in);
  }

  const Program& p_;
  ir::Function f_;
  ir::Builder b_;
  std::map<ValueId, Tensor> at_;
  std::vector<bool> wrt_;
};

// The sweep's ops written out: the cotangents as assignments, in the order the engine
// sums them, values read twice as temporaries, the rest inline.
class Printer {
  // A cotangent: of the value named x, given by the rule of op `by`.
  struct Share {
    std::string x;
    const ir::Op* by;
  };

 public:
  Printer(const Program& p, const Lowering& low, const ir::Function& g, const tl::ad::VjpValues& values,
          Recording& rec, const std::function<std::string(const Node&)>& comment)
      : p_(p), low_(low), g_(g), rec_(rec), comment_(comment) {
    std::set<ir::ValueId> forward;
    for (const auto& [fv, gv] : values.primal) forward.insert(gv);
    for (const ir::Op& op : g.body.ops) {
      if (forward.count(op.results.at(0)) != 0) continue;
      if (op.results.size() != 1) throw NotYet{};
      sweep_.push_back(&op);
      for (ir::ValueId v : op.operands) ++uses_[v];
    }
    for (ir::ValueId v : g.body.results) ++uses_[v];
    for (const auto& c : values.cotangents) sums_[c.value].push_back({name_of(c.of), c.by});
  }

  Sweep print(const std::string& seed) {
    Sweep out;
    const std::string& result = p_.values[std::size_t(p_.result)].name;
    out.lines.push_back("tl::Tensor d_" + result + " = " + seed + ";");
    std::set<std::string> declared{result};
    for (const auto& [gv, xs] : sums_)
      for (const Share& share : xs)
        if (declared.insert(share.x).second) out.lines.push_back("tl::Tensor d_" + share.x + ";");
    // Cotangents that are values from before the sweep (the seed, an operand).
    for (const auto& [gv, xs] : sums_)
      if (rec_.made_by(gv) == nullptr || !in_sweep(gv)) assign(out, gv, xs);
    for (const ir::Op* op : sweep_) {
      const ir::ValueId v = op->results[0];
      if (const auto it = sums_.find(v); it != sums_.end()) {
        assign(out, v, it->second);
      } else if (uses_[v] > 1) {
        const std::string t = fmt::format("t_{}_{}", op->name(), temps_++);
        out.lines.push_back("const tl::Tensor " + t + " = " + rec_.define(v).text + ";");
        rec_.name(v, t);
      }
    }
    for (std::size_t w : p_.wrt)
      out.cotangents +=
          (out.cotangents.empty() ? "" : ", ") + rec_.write(g_.body.results.at(1 + low_.wrt_rank.at(w))).text;
    return out;
  }

 private:
  bool in_sweep(ir::ValueId v) const {
    return std::any_of(sweep_.begin(), sweep_.end(), [&](const ir::Op* op) { return op->results[0] == v; });
  }
  // The program's name for a value of the lowered body.
  std::string name_of(ir::ValueId fv) const {
    const auto& args = low_.function().body.args;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i] == fv) return low_.names[i].text;
    return p_.values[std::size_t(low_.program_value.at(fv))].name;
  }
  // gv is the cotangent of each of xs so far: d_x = its op written out (d_x's
  // previous value among its operands), and from now on gv is read as d_x.
  void assign(Sweep& out, ir::ValueId gv, const std::vector<Share>& xs) {
    for (const auto& [x, by] : xs) {
      const std::string d = "d_" + x;
      const std::string text = rec_.named(gv) ? rec_.write(gv).text : rec_.define(gv).text;
      if (text == d) continue;
      if (const auto it = holds_.find(d); it != holds_.end() && it->second != gv) rec_.retire(it->second);
      if (by != nullptr && by != commented_)
        out.lines.push_back("// " + comment_(*low_.node_of.at(by->results.at(0))));
      commented_ = by;
      out.lines.push_back(d + " = " + text + ";");
      holds_[d] = gv;
      if (!rec_.named(gv)) rec_.name(gv, d);
    }
  }

  const Program& p_;
  const Lowering& low_;
  const ir::Function& g_;
  Recording& rec_;
  const std::function<std::string(const Node&)>& comment_;
  std::vector<const ir::Op*> sweep_;
  std::map<ir::ValueId, int> uses_;
  std::map<ir::ValueId, std::vector<Share>> sums_;  // g's value -> what it is the cotangent of
  const ir::Op* commented_ = nullptr;
  std::map<std::string, ir::ValueId> holds_;  // d_x -> the value it holds now
  int temps_ = 0;
};

}  // namespace

std::optional<Sweep> engine_sweep(const Program& p, const std::string& seed,
                                  const std::function<std::string(const Node&)>& comment) {
  Lowering low(p);
  try {
    low.lower();
    const ir::Function& f = low.function();
    tl::ad::VjpValues values;
    const ir::Function g = tl::ad::vjp(f, low.wrt(), false, &values);
    // g's parameters: f's, then the seed.
    std::map<ir::ValueId, Expr> names;
    std::map<ir::ValueId, Kind> kinds;
    std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars;
    for (std::size_t i = 0; i < f.body.args.size(); ++i) {
      if (low.scalars.count(f.body.args[i]) != 0) continue;
      names[g.body.args[i]] = low.names[i];
      kinds[g.body.args[i]] = low.kinds[i];
    }
    for (const auto& [v, s] : low.scalars)
      scalars[values.primal.at(v)] = {s.first, values.primal.at(s.second)};
    for (const auto& [fv, pv] : low.program_value)
      names[values.primal.at(fv)] = {p.values[std::size_t(pv)].name, 0};
    const std::string& result = p.values[std::size_t(p.result)].name;
    // The seed has the result's type.
    std::map<ir::ValueId, Kind> f_kinds;
    for (std::size_t i = 0; i < f.body.args.size(); ++i)
      if (low.scalars.count(f.body.args[i]) == 0) f_kinds[f.body.args[i]] = low.kinds[i];
    const Recording forward(f, {}, f_kinds, low.scalars, "");
    names[g.body.args.back()] = {"d_" + result, 0};
    kinds[g.body.args.back()] = forward.kind(f.body.results[0]);
    Recording rec(g, names, kinds, scalars, "");
    return Printer(p, low, g, values, rec, comment).print(seed);
  } catch (const NotYet&) {
  } catch (const tl::detail::UnknownTypeError&) {
  } catch (const std::logic_error&) {
  }
  return std::nullopt;
}

}  // namespace tlaloc_grad

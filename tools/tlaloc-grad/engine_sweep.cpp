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
#include "ops/cpp_spelling.hpp"
#include "ops/op.hpp"
#include "ops/rule.hpp"
#include "rules.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;
using tl::Tensor;

// Where the lowering stops, and what stopped it: the tool's own sweep writes the
// gradient.
struct NotYet {
  std::string what;
};

// An integer literal, as written.
std::optional<std::int64_t> integer(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  const std::size_t digits = s.starts_with("-") ? 1 : 0;
  if (s.size() == digits || s.find_first_not_of("0123456789", digits) != std::string::npos)
    return std::nullopt;
  return std::stoll(s);
}

// The text of an argument, or the initializer of the constant it names.
using Constants = std::map<std::string, std::string, std::less<>>;
const std::string& resolved(const std::string& text, const Constants& constants) {
  const auto it = constants.find(text);
  return it == constants.end() ? text : it->second;
}

// A reduction's axes written as literals: none (every axis), `{}`, `{0, -1}` or `1`.
tl::Axes axes_written(const std::vector<Arg>& args, const Constants& constants) {
  if (args.size() < 2) return {};
  const std::string& t = resolved(args[1].text, constants);
  if (const auto one = integer(t)) return tl::Axes(*one);
  if (!t.starts_with("{") || !t.ends_with("}")) throw NotYet{"axes written other than as literals"};
  const std::string inside = t.substr(1, t.size() - 2);
  if (inside.find_first_not_of(' ') == std::string::npos) return {};
  std::vector<std::int64_t> axes;
  for (std::size_t at = 0; at <= inside.size();) {
    const std::size_t comma = std::min(inside.find(',', at), inside.size());
    const auto a = integer(inside.substr(at, comma - at));
    if (!a) throw NotYet{"axes written other than as literals"};
    axes.push_back(*a);
    at = comma + 1;
  }
  return tl::Axes(axes);
}
bool keepdims_written(const std::vector<Arg>& args, const Constants& constants) {
  if (args.size() < 3) return false;
  const std::string& t = resolved(args[2].text, constants);
  if (args.size() > 3 || (t != "true" && t != "false"))
    throw NotYet{"keepdims written other than as a literal"};
  return t == "true";
}
// A call of a public function the tool spells from its own rule table: the result of
// `fn`, whose shares (attribute "shares", one per operand) are C++ text over
// placeholders for its operands, its result and its cotangent. Each share is recorded
// as an op standing for that text.
const tl::detail::OpDef& spelled_text() {
  static const tl::detail::OpDef& op =
      tl::detail::def_op("tlaloc_grad.text").inputs(-1).no_derivative().cpp([](tl::detail::CppOp& o) {
        return o.attrs().get<std::string>("text");
      });
  return op;
}
const tl::detail::OpDef& spelled_call() {
  static const tl::detail::OpDef& op =
      tl::detail::def_op("tlaloc_grad.call").inputs(-1).vjp([](const tl::detail::Rule& r) {
        const auto& shares = r.attr<std::vector<std::string>>("shares");
        std::vector<Tensor> operands, out(r.num_in());
        for (std::size_t i = 0; i < r.num_in(); ++i) operands.push_back(r.in(i));
        operands.push_back(r.out());
        operands.push_back(r.cotangent());
        for (std::size_t i = 0; i < r.num_in(); ++i)
          if (r.wants(i) && !shares.at(i).empty())
            out[i] = tl::detail::call1(spelled_text(), operands, {{"text", shares[i]}});
        return out;
      });
  return op;
}

class Lowering {
 public:
  explicit Lowering(const Program& p) : p_(p), b_(f_), next_class_(int(p.params.size())) {}

  // f_: the body, its parameters the tensors it reads; each parameter's C++ name.
  void lower() {
    for (std::size_t i = 0; i < p_.params.size(); ++i) {
      const Param& prm = p_.params[i];
      const bool w = std::find(p_.wrt.begin(), p_.wrt.end(), i) != p_.wrt.end();
      if (prm.list && w) lists.push_back(prm.name);
      if (prm.value < 0) continue;
      at_[prm.value] = param(prm.name, of_class(int(i)), w);
      if (w) param_value[i] = b_.value_of(at_[prm.value]);
    }
    for (const Node& s : p_.body) node(s);
    const auto result = at_.find(p_.result);
    if (result == at_.end() || !p_.values[std::size_t(p_.result)].active)
      throw NotYet{"a result that does not depend on what is differentiated"};
    b_.finish(std::vector<Tensor>{result->second});
    check_passing();
  }

  const ir::Function& function() const { return f_; }
  // Which of the vjp's results is the cotangent of f_'s parameter fv.
  std::size_t result_of(ir::ValueId fv) const {
    std::size_t k = 1;
    for (std::size_t i = 0; f_.body.args.at(i) != fv; ++i) k += wrt_[i] ? 1 : 0;
    return k;
  }
  const std::vector<bool>& wrt() const { return wrt_; }
  // For the parameters of f_ (by position): names, kinds and scalars.
  std::vector<Expr> names;
  std::vector<Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>>
      scalars;                                   // a scalar: its text, the tensor beside it
  std::map<ir::ValueId, ValueId> program_value;  // f_'s value -> the program's
  std::map<ir::ValueId, const Node*> node_of;    // f_'s op result -> its node
  std::map<std::size_t, ir::ValueId> param_value;  // a differentiated parameter's in f_
  // The differentiated lists, and the elements read from them (in f_'s order), each
  // with the variable its cotangent is (d_<list>[<index>]).
  std::vector<std::string> lists;
  std::vector<ir::ValueId> wrt_elements;
  std::map<ir::ValueId, std::string> target;

 private:
  Tensor param(const std::string& name, Kind kind, bool wrt = false) {
    names.push_back({name, 0});
    kinds.push_back(kind);
    wrt_.push_back(wrt);
    return b_.param(tl::detail::unknown_type());
  }

  void node(const Node& s) {
    if (!s.list.empty() || !s.callee.empty() || !s.structured.empty())
      throw NotYet{"a list, a custom rule or a tl:: region"};
    if (s.kind == Node::Kind::scalar) return constant(s);  // in the forward pass, which the sweep follows
    if (s.kind != Node::Kind::op)
      throw NotYet{std::string(s.kind == Node::Kind::branch ? "a branch" : "a loop")};
    const Value& v = p_.values[std::size_t(s.result)];
    if (v.undefined || v.maybe_undefined) throw NotYet{"a value defined on some paths only"};
    if (!v.list.empty()) return element(s, v);
    // What nothing differentiates is an input of the sweep.
    if (!v.active || zero_derivative(s.fn)) {
      at_[s.result] = param(v.name, of_class(next_class_++));
      return;
    }
    const Tensor t = record(s);
    at_[s.result] = t;
    program_value[b_.value_of(t)] = s.result;
    node_of[b_.value_of(t)] = &s;
  }

  // `const T name = init;` (axes, keepdims in an inlined library function): the
  // initializer stands for the name where a reduction reads it.
  void constant(const Node& s) {
    if (s.declares.empty()) return;
    const std::size_t eq = s.text.find(" = ");
    const bool declared = s.text.starts_with("const ") && !s.assignment && eq != std::string::npos &&
                          s.text.ends_with(";") && s.text.find(" " + s.declares + " = ") != std::string::npos;
    if (declared)
      constants_[s.declares] = s.text.substr(eq + 3, s.text.size() - eq - 4);
    else
      constants_.erase(s.declares);
  }

  // An element of a list parameter read as a tensor: a parameter of f_, one for each
  // element however often it is read (traced, each read is the argument itself), its
  // cotangent the list's cotangent's element.
  void element(const Node& s, const Value& v) {
    const bool literal = !v.at.empty() && v.at.find_first_not_of("0123456789") == std::string::npos;
    const bool named = s.text.find(".at(\"") != std::string::npos && s.text.ends_with("\")");
    if (!literal && !named) throw NotYet{"an element of a list at an index computed at run time"};
    const std::string key = literal ? v.list + "[" + v.at + "]" : s.text;
    const auto [it, first] = elements_.try_emplace(key);
    if (first) {
      const bool w = v.active && std::find(lists.begin(), lists.end(), v.list) != lists.end();
      it->second = param(v.name, of_class(next_class_++), w);
      const ir::ValueId fv = b_.value_of(it->second);
      target[fv] = "d_" + v.list + "[" + v.at + "]";
      if (w) wrt_elements.push_back(fv);
    }
    at_[s.result] = it->second;
  }

  Tensor operand(const Arg& a) {
    if (!a.is_tensor()) throw NotYet{"a scalar where a tensor is read"};
    const auto it = at_.find(a.value);
    if (it == at_.end()) throw NotYet{"a value the lowering did not see"};
    return it->second;
  }

  Tensor record(const Node& s) {
    if (s.fn == "sum" || s.fn == "max" || s.fn == "min") {
      const Tensor x = operand(s.args.at(0));
      const tl::Axes axes = axes_written(s.args, constants_);
      const bool keepdims = keepdims_written(s.args, constants_);
      return s.fn == "sum"   ? tl::sum(x, axes, keepdims)
             : s.fn == "max" ? tl::max(x, axes, keepdims)
                             : tl::min(x, axes, keepdims);
    }
    const Rule* rule = find_rule(s.fn);
    if (rule == nullptr || rule->vjp == nullptr) throw NotYet{"'" + s.fn + "'"};
    const bool elementwise = rule->partials != 0 || s.fn == "add" || s.fn == "sub" || s.fn == "neg" ||
                             s.fn == "where" || s.fn == "select";
    if (!elementwise) return spelled_op(s, *rule);
    const tl::detail::OpDef* def = tl::detail::find_op(s.fn == "where" ? "select" : s.fn);
    if (def == nullptr) throw NotYet{"'" + s.fn + "'"};
    std::vector<Tensor> in;
    for (std::size_t k = 0; k < s.args.size(); ++k) {
      if (s.args[k].is_tensor()) {
        in.push_back(operand(s.args[k]));
        continue;
      }
      // A scalar beside the other operand of a binary op, or the other branch of
      // tl::where, which gives it its dtype.
      const std::size_t partner = s.args.size() == 2 ? 1 - k : s.args.size() == 3 && k > 0 ? 3 - k : k;
      if (partner == k || !s.args[partner].is_tensor()) throw NotYet{"a scalar beside no tensor"};
      const Tensor scalar = param(s.args[k].text, {});
      scalars[b_.value_of(scalar)] = {s.args[k].text, b_.value_of(operand(s.args[partner]))};
      in.push_back(scalar);
    }
    return tl::detail::call1(*def, in);
  }

  // A function the engine's rule for which reads a type, or that is no registry op:
  // an op standing for its call, whose shares are the tool's rule for it
  // (rules.cpp), each an op standing for that text.
  Tensor spelled_op(const Node& s, const Rule& rule) {
    if (rule.with_so_far != nullptr) throw NotYet{"'" + s.fn + "', whose shares the engine adds in parts"};
    std::vector<Tensor> in;
    Names names;
    for (const Arg& a : s.args) {
      names.tensor.push_back(a.is_tensor());
      names.args.push_back(a.is_tensor() ? placeholder(in.size()) : a.text);
      if (a.is_tensor()) in.push_back(operand(a));
    }
    names.y = placeholder(in.size());
    names.g = placeholder(in.size() + 1);
    std::vector<std::string> shares;
    for (std::size_t k = 0; k < s.args.size(); ++k)
      if (s.args[k].is_tensor()) shares.push_back(rule.vjp(rule, k, names));
    const Tensor y = tl::detail::call1(spelled_call(), in, {{"fn", s.fn}, {"shares", shares}});
    if (may_pass_on(s)) passing_.push_back(b_.value_of(y));
    return y;
  }
  // Where a function that may return its operand has a tensor operand read elsewhere
  // too, the engine (which sees no op there) adds the result's shares to it among its
  // others; this sweep would sum them first.
  void check_passing() const {
    std::map<ir::ValueId, int> uses;
    for (const ir::Op& op : f_.body.ops)
      for (ir::ValueId v : op.operands) ++uses[v];
    for (ir::ValueId v : f_.body.results) ++uses[v];
    for (const ir::Op& op : f_.body.ops)
      if (std::find(passing_.begin(), passing_.end(), op.results.at(0)) != passing_.end() &&
          !op.operands.empty() && uses[op.operands[0]] > 1)
        throw NotYet{"'" + op.attrs.get<std::string>("fn") + "' of a value read elsewhere too"};
  }

  const Program& p_;
  ir::Function f_;
  ir::Builder b_;
  std::map<ValueId, Tensor> at_;
  std::vector<bool> wrt_;
  std::map<std::string, Tensor> elements_;
  std::vector<ir::ValueId> passing_;  // the spelled calls that may return their operand
  Constants constants_;
  int next_class_;  // the type class of the next parameter not of the function's
};

// The sweep's ops written out: the cotangents as assignments, in the order the engine
// sums them, values read twice as temporaries, the rest inline.
class Printer {
  // A cotangent: the variable d holding it, given by the rule of op `by`.
  struct Share {
    std::string d;
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
      if (op.results.size() != 1) throw NotYet{"an op with several results"};
      sweep_.push_back(&op);
      count_uses(op);
    }
    for (ir::ValueId v : g.body.results) ++uses_[v];
    for (const auto& c : values.cotangents) sums_[c.value].push_back({target_of(c.of), c.by});
  }

  Sweep print(const std::string& seed) {
    Sweep out;
    const std::string& result = p_.values[std::size_t(p_.result)].name;
    out.lines.push_back("tl::Tensor d_" + result + " = " + seed + ";");
    for (const std::string& list : low_.lists)
      out.lines.push_back("std::vector<tl::Tensor> d_" + list + "(" + list + ".size());");
    std::set<std::string> declared{"d_" + result};
    for (const auto& [gv, xs] : sums_)
      for (const Share& share : xs)
        if (share.d.find('[') == std::string::npos && declared.insert(share.d).second)
          out.lines.push_back("tl::Tensor " + share.d + ";");
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
    // The elements of the differentiated lists, in their lists' cotangents.
    for (ir::ValueId fv : low_.wrt_elements) {
      const std::string text = rec_.write(g_.body.results.at(low_.result_of(fv))).text;
      if (text != low_.target.at(fv)) out.lines.push_back(low_.target.at(fv) + " = " + text + ";");
    }
    for (std::size_t w : p_.wrt) {
      const auto it = low_.param_value.find(w);
      out.cotangents.push_back(it == low_.param_value.end()
                                   ? std::string()
                                   : rec_.write(g_.body.results.at(low_.result_of(it->second))).text);
    }
    return out;
  }

 private:
  // A weak scalar written as its number beside its partner reads nothing; written
  // alone it reads its partner's dtype.
  void count_uses(const ir::Op& op) {
    if (op.name() == "weak_scalar") return;
    for (ir::ValueId v : op.operands) {
      ++uses_[v];
      const ir::Op* made = rec_.made_by(v);
      if (made != nullptr && made->name() == "weak_scalar" &&
          std::find(op.operands.begin(), op.operands.end(), made->operands[0]) == op.operands.end())
        ++uses_[made->operands[0]];
    }
  }
  bool in_sweep(ir::ValueId v) const {
    return std::any_of(sweep_.begin(), sweep_.end(), [&](const ir::Op* op) { return op->results[0] == v; });
  }
  // The variable holding the cotangent of a value of the lowered body.
  std::string target_of(ir::ValueId fv) const {
    if (const auto it = low_.target.find(fv); it != low_.target.end()) return it->second;
    const auto& args = low_.function().body.args;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i] == fv) return "d_" + low_.names[i].text;
    return "d_" + p_.values[std::size_t(low_.program_value.at(fv))].name;
  }
  // gv is the cotangent of each of xs so far: d_x = its op written out (d_x's
  // previous value among its operands), and from now on gv is read as d_x.
  void assign(Sweep& out, ir::ValueId gv, const std::vector<Share>& xs) {
    for (const auto& [d, by] : xs) {
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

Sweep engine_sweep(const Program& p, const std::string& seed,
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
    names[g.body.args.back()] = {"d_" + result, 0};
    Recording rec(g, names, kinds, scalars, "", {{g.body.args.back(), values.primal.at(f.body.results[0])}});
    return Printer(p, low, g, values, rec, comment).print(seed);
  } catch (const NotYet& e) {
    return {{}, {}, e.what};
  } catch (const tl::detail::UnknownTypeError&) {
    return {{}, {}, "a rule that reads a type known only at run time"};
  } catch (const std::logic_error&) {
    return {{}, {}, "a recording it cannot write back"};
  }
}

}  // namespace tlaloc_grad

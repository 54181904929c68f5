// The lowering of a body for the engine's sweep (engine_lowering.hpp).
#include "engine_lowering.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>

#include "core/tensor_impl.hpp"
#include "engine_rules.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/reduce_axes.hpp"
#include "ops/rule.hpp"
#include "shapes.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc_grad {
namespace {

// The text of an argument, or the initializer of the constant it names.
const std::string& resolved(const std::string& text, const Constants& constants) {
  const auto it = constants.find(text);
  return it == constants.end() ? text : it->second;
}

// A reduction's axes written as literals: none (every axis), `{}`, `{0, -1}` or `1`;
// `args` are the arguments after its tensors (axes, then keepdims).
tl::Axes axes_written(const std::vector<Arg>& args, const Constants& constants) {
  if (args.empty()) return {};
  const std::string& t = resolved(args[0].text, constants);
  if (const auto one = int_literal(t)) return tl::Axes(*one);
  const auto listed = int_list(t);
  if (!listed) throw NotYet{"axes written other than as literals"};
  return listed->empty() ? tl::Axes() : tl::Axes(*listed);
}
bool keepdims_written(const std::vector<Arg>& args, const Constants& constants) {
  if (args.size() < 2) return false;
  const std::string& t = resolved(args[1].text, constants);
  if (args.size() > 2 || (t != "true" && t != "false"))
    throw NotYet{"keepdims written other than as a literal"};
  return t == "true";
}
const tl::detail::OpDef& spelled_text() {
  static const tl::detail::OpDef& op =
      tl::detail::def_op("tlaloc_grad.text").inputs(-1).no_derivative().cpp([](tl::detail::CppOp& o) {
        return o.attrs().get<std::string>("text");
      });
  return op;
}

}  // namespace

namespace {

// An element read at a literal index, or by name (`.at("w")`).
bool literal_index(const Value& v) {
  return !v.at.empty() && v.at.find_first_not_of("0123456789") == std::string::npos;
}
bool named_read(const Node& s) {
  return s.text.find(".at(\"") != std::string::npos && s.text.ends_with("\")");
}

// A custom rule's call, `fn(x, ...)`: its VJP calls the rule's backward half once
// (attribute "backward", C++ text over a placeholder for the cotangent), on what the
// forward half kept, and each operand's share is its element of what that returns.
const tl::detail::OpDef& custom_cotangents() {
  static const tl::detail::OpDef& op =
      tl::detail::def_op(kCustomCotangents).inputs(1).no_derivative().cpp([](tl::detail::CppOp& o) {
        return o.attrs().get<std::string>("text");
      });
  return op;
}
const tl::detail::OpDef& custom_call() {
  static const tl::detail::OpDef& op =
      tl::detail::def_op("tlaloc_grad.custom").inputs(-1).vjp([](const tl::detail::Rule& r) {
        const Tensor cts = tl::detail::call1(
            custom_cotangents(), std::vector<Tensor>{r.cotangent()},
            {{"text", r.attr<std::string>("backward")}, {"name", r.attr<std::string>("name")}});
        std::vector<Tensor> out(r.num_in());
        for (std::size_t i = 0; i < r.num_in(); ++i)
          if (r.wants(i))
            out[i] = tl::detail::call1(spelled_text(), std::vector<Tensor>{cts},
                                       {{"text", Expr::hole(0) + "[" + std::to_string(i) + "]"}});
        return out;
      });
  return op;
}

}  // namespace

void Lowering::lists_read_at_run_time(const Block& b) {
  for (const Node& n : b) {
    if (n.kind == Node::Kind::op && n.result >= 0) {
      const Value& v = p_.values[std::size_t(n.result)];
      if (!v.list.empty() && !literal_index(v) && !named_read(n)) read_at_run_time_.insert(v.list);
    }
    lists_read_at_run_time(n.body);
    lists_read_at_run_time(n.orelse);
  }
}

void Lowering::lower() {
  for (std::size_t i = 0; i < p_.params.size(); ++i) {
    const Param& prm = p_.params[i];
    const bool w = std::find(p_.wrt.begin(), p_.wrt.end(), i) != p_.wrt.end();
    if (prm.list && w) lists.push_back(prm.name);
    if (prm.value < 0) continue;
    at_[prm.value] = param(prm.name, of_class(int(i)), w);
    if (w) param_value[i] = b_.value_of(at_[prm.value]);
  }
  count_reads(p_.body, uses_, &sides_);
  ++uses_[p_.result];
  lists_read_at_run_time(p_.body);
  for (const Node& s : p_.body) node(s);
  const auto result = at_.find(p_.result);
  if (result == at_.end() || !p_.values[std::size_t(p_.result)].active)
    throw NotYet{"a result that does not depend on what is differentiated"};
  b_.finish(std::vector<Tensor>{result->second});
}

Tensor Lowering::param(const std::string& name, Kind kind, bool wrt) {
  names.push_back(Expr::text(name));
  kinds.push_back(kind);
  wrt_.push_back(wrt);
  return b_.param(tl::detail::unknown_type());
}

void Lowering::node(const Node& s) {
  if (!s.list.empty()) throw NotYet{"a list of saved values"};
  if (s.structured == "tl::cond" && s.kind == Node::Kind::branch) return cond(s);
  if (s.kind == Node::Kind::loop &&
      (s.structured == "tl::fori_loop" || s.structured == "tl::while_loop" || s.structured == "tl::scan"))
    return structured_loop(s);
  if (!s.structured.empty()) throw NotYet{"a tl:: region (" + s.structured + ")"};
  if (s.kind == Node::Kind::scalar) return constant(s);  // in the forward pass, which the sweep follows
  if (s.kind == Node::Kind::branch) return branch(s);
  if (s.kind == Node::Kind::loop) return loop(s);
  const Value& v = p_.values[std::size_t(s.result)];
  if (v.undefined) return;  // `tl::Tensor t;`: no value, until a path assigns one
  if (s.fn == "scan_slice") {  // a tl::scan's step of a sequence: its cotangent is stacked
    stands_for(s.result);
    return;
  }
  if (v.maybe_undefined) throw NotYet{"a value defined on some paths only"};
  if (!v.list.empty()) return element(s, v);
  // What nothing differentiates is an input of the sweep.
  if (!v.active || zero_derivative(s.fn)) {
    at_[s.result] = param(v.name, of_class(next_class_++));
    return;
  }
  const std::size_t first = f_.body.ops.size();
  const Tensor t = record(s);
  at_[s.result] = t;
  program_value[b_.value_of(t)] = s.result;
  node_of[b_.value_of(t)] = &s;
  ops_of[&s] = {first, f_.body.ops.size()};
}

void Lowering::branch(const Node& s) {
  if (!s.hoisted.empty() || !s.head.empty()) throw NotYet{"a branch that hoists what it defines"};
  for (const Node& n : s.body) node(n);
  for (const Node& n : s.orelse) node(n);
  for (const Phi& ph : s.phis) {
    const Value& out = p_.values[std::size_t(ph.out)];
    if (out.undefined) continue;
    const Tensor t = stands_for(ph.out);
    const bool both = ph.first == ph.second;
    for (const auto& [side, path] : {std::pair{ph.first, &s.body}, std::pair{ph.second, &s.orelse}}) {
      // A path leaving the value without one passes no share on.
      if (!lowered(side) || !out.active || !p_.values[std::size_t(side)].active) continue;
      // Where the path passes on a value from before it that is read elsewhere too,
      // tracing sees that value itself: its cotangent takes the shares of the value
      // after the branch as they come (the generated code's d_<out> refers to it
      // where the condition holds, every condition's variable declared before the
      // outermost branch, and false until its branch runs; an inner branch's value
      // has shares only where the paths around it ran).
      const Alias a{b_.value_of(t), value(side), cond_name(s.id), path == &s.body, scope()};
      // A value of the path read there only besides gets the shares of the value
      // after the branch before its own, as tracing adds them; so does one value on
      // both paths read nowhere else. (Unless it turns out to be a loop's carried
      // value that may be a value from before the loop: Lowering::refer_through.)
      if (uses_.at(side) < 2 || (defines(*path, side) && sides_.at(side) < 2) ||
          (both && uses_.at(side) < 3)) {
        if (!defines(*path, side) || element_params_.count(value(side)) != 0 ||
            in_place.count(value(side)) != 0)
          unaliased_.emplace_back(aliases.size(), a);
        continue;
      }
      aliases.push_back(a);
    }
  }
}

Tensor Lowering::stands_for(ValueId v) {
  const Value& val = p_.values[std::size_t(v)];
  const Tensor t = param(val.name, of_class(next_class_++));
  at_[v] = t;
  if (val.active) joined.push_back(b_.value_of(t));
  return t;
}

void Lowering::own_since(Loop& l, std::size_t args, std::size_t ops) const {
  for (std::size_t k = args; k < f_.body.args.size(); ++k)
    if (element_params_.count(f_.body.args[k]) == 0) l.own.insert(f_.body.args[k]);
  for (std::size_t k = ops; k < f_.body.ops.size(); ++k)
    l.own.insert(f_.body.ops[k].results.begin(), f_.body.ops[k].results.end());
}

void Lowering::free_of(Loop& l, const Node& s) {
  for (ValueId v : read_from_outside(s))
    if (lowered(v))
      if (const ir::ValueId fv = value(v); std::find(l.free.begin(), l.free.end(), fv) == l.free.end())
        l.free.push_back(fv);
}

void Lowering::cond(const Node& s) {
  if (!s.hoisted.empty() || !s.head.empty()) throw NotYet{"a branch that hoists what it defines"};
  const std::size_t args = f_.body.args.size(), ops = f_.body.ops.size();
  regions_.push_back(&s.body);
  for (const Node& n : s.body) node(n);
  regions_.back() = &s.orelse;
  for (const Node& n : s.orelse) node(n);
  regions_.pop_back();
  Loop& c = loops[&s];
  own_since(c, args, ops);
  free_of(c, s);
  for (const Phi& ph : s.phis)
    if (!p_.values[std::size_t(ph.out)].undefined) stands_for(ph.out);
}

void Lowering::structured_loop(const Node& s) {
  const std::size_t args = f_.body.args.size(), ops = f_.body.ops.size();
  for (const Phi& ph : s.phis) {
    const Value& in = p_.values[std::size_t(ph.in)];
    if (in.undefined || in.maybe_undefined) throw NotYet{"a value defined on some paths only"};
    stands_for(ph.in);
  }
  // A tl::while_loop's condition (its head) is differentiated nowhere.
  regions_.push_back(&s.body);
  for (const Node& n : s.body) node(n);
  regions_.pop_back();
  Loop& l = loops[&s];
  own_since(l, args, ops);
  for (ValueId y : s.y)
    if (!lowered(y)) throw NotYet{"a value defined on some paths only"};
  for (const Phi& ph : s.phis) {
    if (!lowered(ph.second)) throw NotYet{"a value defined on some paths only"};
    if (uses_.at(ph.second) > 1) l.read.insert(value(ph.second));
  }
  free_of(l, s);
  for (const Phi& ph : s.phis) stands_for(ph.out);
  for (ValueId ys : s.ys) stands_for(ys);  // a tl::scan's outputs, stacked
}

void Lowering::loop(const Node& s) {
  const std::size_t args = f_.body.args.size(), ops = f_.body.ops.size();
  const std::string id = std::to_string(s.id);
  std::vector<std::size_t> heads;  // where each carried value's references at the head go
  for (const Phi& ph : s.phis) {
    const Value& in = p_.values[std::size_t(ph.in)];
    if (in.undefined) throw NotYet{"a value defined on some paths only"};
    const Tensor t = stands_for(ph.in);
    // In the first iteration the carried value is its initial value (if it has one).
    if (in.active && lowered(ph.first) && p_.values[std::size_t(ph.first)].active)
      aliases.push_back({b_.value_of(t), value(ph.first), "k" + id + " == 0", true, &s.body});
    heads.push_back(aliases.size());
  }
  const std::size_t unaliased = unaliased_.size();
  regions_.push_back(&s.body);
  for (const Node& n : s.body) node(n);
  regions_.pop_back();
  for (const Phi& ph : s.phis)
    if (!lowered(ph.second)) throw NotYet{"a value defined on some paths only"};
  Loop& l = loops[&s];
  own_since(l, args, ops);
  std::map<ValueId, int> reads;
  count_reads(s.body, reads);
  for (const Phi& ph : s.phis) ++reads[ph.second];
  for (const auto& [v, n] : reads)
    if (lowered(v))
      if (const ir::ValueId fv = value(v);
          l.own.count(fv) == 0 && std::find(l.free.begin(), l.free.end(), fv) == l.free.end())
        l.free.push_back(fv);
  std::map<const Phi*, const Phi*> same;
  const std::map<const Phi*, std::vector<ValueId>> roots = fresh_at_head(s, l, unaliased, same);
  for (const Phi& ph : s.phis)
    if (uses_.at(ph.second) > 1) l.read.insert(value(ph.second));
  // The values whose variables may refer to such a value's: the carried values that
  // may be one at an iteration's start (another's initial value passed on included),
  // and two that end an iteration as one value.
  std::set<ir::ValueId> referring;
  for (const auto& [ph, rs] : roots)
    for (ValueId r : rs) {
      referring.insert(value(r));
      for (const Phi& q : s.phis)
        if ((lowered(q.first) && value(q.first) == value(r)) || &q == ph) referring.insert(value(q.in));
    }
  for (const auto& [ph, other] : same) referring.insert({value(ph->in), value(other->in)});
  refer_through(referring, unaliased);
  for (std::size_t i = s.phis.size(); i-- > 0;) {
    const Phi& ph = s.phis[i];
    if (const auto r = roots.find(&ph); r != roots.end()) identify(s, ph, r->second, heads[i]);
    // The value an iteration started with is the other's where both are one tensor
    // (after the first iteration, always), its shares in the other's variable.
    if (const auto o = same.find(&ph); o != same.end())
      insert_aliases(heads[i],
                     {{value(ph.in), value(o->second->in), is_same(ph.in, o->second->in), true, &s.body}});
  }
  results(s, roots, same, l);
}

void Lowering::results(const Node& s, const std::map<const Phi*, std::vector<ValueId>>& roots,
                       const std::map<const Phi*, const Phi*>& same, Loop& l) {
  const std::string id = std::to_string(s.id);
  for (const Phi& ph : s.phis) {
    const Tensor t = stands_for(ph.out);
    if (!p_.values[std::size_t(ph.out)].active) continue;
    const auto r = roots.find(&ph);
    // Where the loop ran no iteration, its result is the initial value.
    if (lowered(ph.first) && p_.values[std::size_t(ph.first)].active &&
        (r == roots.end() || r->second.front() != ph.first))
      aliases.push_back({b_.value_of(t), value(ph.first), "steps_" + id + " == 0", true, scope()});
    // One value with another carried value's: its shares are that one's, and the
    // cotangent carried to the iteration before is that one's alone.
    if (const auto o = same.find(&ph); o != same.end()) {
      aliases.push_back(
          {b_.value_of(t), value(o->second->out), is_same(ph.out, o->second->out), true, scope()});
      l.uncarried.insert(b_.value_of(t));
    }
    if (r != roots.end()) {
      std::string unless;
      for (ValueId root : r->second) {
        aliases.push_back({b_.value_of(t), value(root), is_same(ph.out, root), true, scope()});
        unless += (unless.empty() ? "" : " || ") + is_same(ph.second, root);
      }
      l.carried_unless[b_.value_of(t)] = unless;
    }
  }
}

std::string Lowering::is_same(ValueId a, ValueId b) { return text_of(a) + ".is_same(" + text_of(b) + ")"; }

std::string Lowering::text_of(ValueId v) {
  const ir::ValueId fv = value(v);
  if (element_params_.count(fv) == 0) return p_.values[std::size_t(v)].name;
  const auto at = std::find(f_.body.args.begin(), f_.body.args.end(), fv);
  return names.at(std::size_t(at - f_.body.args.begin())).str();
}

void Lowering::identify(const Node& s, const Phi& ph, const std::vector<ValueId>& roots, std::size_t at) {
  const ir::ValueId in = value(ph.in);
  const auto test = [&](ValueId root) { return is_same(ph.in, root); };
  // The initial value's reference (k == 0) is tested so; the others follow it.
  std::vector<Alias> refs;
  for (ValueId root : roots) {
    const auto it = std::find_if(aliases.begin(), aliases.end(),
                                 [&](const Alias& a) { return a.out == in && a.side == value(root); });
    if (it != aliases.end())
      it->cond = test(root);
    else
      refs.push_back({in, value(root), test(root), true, &s.body});
  }
  insert_aliases(at, refs);
}

void Lowering::insert_aliases(std::size_t at, const std::vector<Alias>& as) {
  aliases.insert(aliases.begin() + std::ptrdiff_t(at), as.begin(), as.end());
  for (auto& [index, a] : unaliased_)
    if (index >= at) index += as.size();
}

void Lowering::refer_through(std::set<ir::ValueId> referring, std::size_t from) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const Alias& a : aliases)
      if (referring.count(a.side) != 0) grew = referring.insert(a.out).second || grew;
    for (std::size_t k = unaliased_.size(); k-- > from;) {
      const auto [index, a] = unaliased_[k];
      if (referring.count(a.side) == 0) continue;
      unaliased_.erase(unaliased_.begin() + std::ptrdiff_t(k));
      insert_aliases(index, {a});
      referring.insert(a.out);
      grew = true;
    }
  }
}

std::map<const Phi*, std::vector<ValueId>> Lowering::fresh_at_head(const Node& s, const Loop& l,
                                                                   std::size_t unaliased,
                                                                   std::map<const Phi*, const Phi*>& same) {
  // A value an iteration started with, passed on to the iteration before: in the
  // unrolled trace the shares of the later iteration come first there, as here,
  // but in the first iteration it is the initial value, whose variable has no
  // other share only where nothing else reads it. Where something does, and where
  // an iteration passes on a value from outside, each value that is such a value
  // itself takes its shares in that value's variable, tested at run time.
  std::map<ir::ValueId, const Phi*> in_of;
  for (const Phi& ph : s.phis) in_of[b_.value_of(at_.at(ph.in))] = &ph;
  // The values from outside, and the list elements read as tensors, by their value in f_.
  std::map<ir::ValueId, ValueId> outside, elements;
  for (const auto& [v, t] : at_)
    if (const ir::ValueId fv = b_.value_of(t); l.own.count(fv) == 0)
      (element_params_.count(fv) != 0 ? elements : outside)[fv] = v;
  const auto alone = [&](const Phi& ph) {
    return !lowered(ph.first) || !p_.values[std::size_t(ph.first)].active || uses_.at(ph.first) == 1;
  };
  // Whether v, at the end of an iteration, has no cotangent yet at the head, or may
  // be one of `roots` (whose variables take its shares where it is).
  const std::function<bool(ir::ValueId, std::vector<ValueId>&)> fresh =
      [&](ir::ValueId v, std::vector<ValueId>& roots) {
        const auto root = [&](ValueId r) {
          if (std::none_of(roots.begin(), roots.end(), [&](ValueId q) { return value(q) == value(r); }))
            roots.push_back(r);
          return true;
        };
        // A value from outside (one nothing differentiates takes no share), or a list's
        // element read at a constant index or by name.
        if (l.own.count(v) == 0) {
          if (const auto from = outside.find(v); from != outside.end())
            return !p_.values[std::size_t(from->second)].active || root(from->second);
          const auto e = elements.find(v);
          return e != elements.end() && root(e->second);
        }
        // An element read at an index computed at run time: its shares go to the
        // element in place, where others' may be already.
        if (in_place.count(v) != 0) return false;
        // A value an iteration started with: where its initial value is read elsewhere
        // too, that value itself (the iteration's own, or another carried value's).
        if (const auto in = in_of.find(v); in != in_of.end())
          return alone(*in->second) || root(in->second->first);
        // The values a path passes on count whether or not v refers to them.
        const auto from = [&](const Alias& a) { return a.out != v || fresh(a.side, roots); };
        return std::all_of(aliases.begin(), aliases.end(), from) &&
               std::all_of(unaliased_.begin() + std::ptrdiff_t(unaliased), unaliased_.end(),
                           [&](const auto& u) { return from(u.second); });
      };
  std::map<ir::ValueId, const Phi*> seconds;
  std::map<const Phi*, std::vector<ValueId>> identified;
  for (const Phi& ph : s.phis) {
    if (!p_.values[std::size_t(ph.out)].active || !p_.values[std::size_t(ph.second)].active) continue;
    const ir::ValueId second = b_.value_of(at_.at(ph.second));
    std::vector<ValueId> roots;
    if (!fresh(second, roots))
      throw NotYet{"a loop passing on a list's element read at an index computed at run time", s.loc};
    if (const auto [other, first] = seconds.emplace(second, &ph); !first) same[&ph] = other->second;
    // The initial value first: its reference is the one the loop has without these.
    if (const auto f =
            std::find_if(roots.begin(), roots.end(),
                         [&](ValueId r) { return lowered(ph.first) && value(r) == value(ph.first); });
        f != roots.end()) {
      *f = ph.first;
      std::rotate(roots.begin(), f, f + 1);
    }
    if (!roots.empty()) identified[&ph] = roots;
  }
  for (const auto& [ph, other] : same)
    if (identified.count(ph) != 0 || identified.count(other) != 0)
      throw NotYet{
          "a loop two of whose carried values end an iteration as one value that may be a value from "
          "before it",
          s.loc};
  return identified;
}

bool Lowering::defines(const Block& b, ValueId v) {
  return std::any_of(b.begin(), b.end(),
                     [&](const Node& n) { return n.kind == Node::Kind::op && n.result == v; });
}

void Lowering::constant(const Node& s) {
  if (s.declares.empty()) return;
  const std::size_t eq = s.text.find(" = ");
  const bool declared = s.text.starts_with("const ") && !s.assignment && eq != std::string::npos &&
                        s.text.ends_with(";") && s.text.find(" " + s.declares + " = ") != std::string::npos;
  if (declared)
    constants_[s.declares] = s.text.substr(eq + 3, s.text.size() - eq - 4);
  else
    constants_.erase(s.declares);
}

void Lowering::element(const Node& s, const Value& v) {
  const bool w = v.active && std::find(lists.begin(), lists.end(), v.list) != lists.end();
  if (!literal_index(v) && !named_read(s)) {
    // An index computed at run time: a parameter for each read (the iteration's, in a
    // loop), its shares added in place to the element's cotangent.
    const Tensor t = param(v.name, of_class(next_class_++), w);
    target[b_.value_of(t)] = "d_" + v.list + "[" + v.at + "]";
    in_place.insert(b_.value_of(t));
    at_[s.result] = t;
    return;
  }
  const std::string key = literal_index(v) ? v.list + "[" + v.at + "]" : s.text;
  const auto [it, first] = elements_.try_emplace(key);
  if (first) {
    // Written as read from the list: a variable holding an earlier read may be out
    // of scope, or unassigned on a path not taken.
    it->second = param(s.text, of_class(next_class_++), w);
    const ir::ValueId fv = b_.value_of(it->second);
    element_params_.insert(fv);
    // By name, the index as the list gives it: the scalar holding it may be out of scope
    // where the sweep adds to it.
    const std::string index =
        literal_index(v) ? v.at : v.list + ".index(" + s.text.substr(s.text.find(".at(\"") + 4);
    target[fv] = "d_" + v.list + "[" + index + "]";
    if (w) wrt_elements.push_back(fv);
    // Another read, at an index computed at run time, may be this element.
    if (read_at_run_time_.count(v.list) != 0) in_place.insert(fv);
  }
  at_[s.result] = it->second;
}

Tensor Lowering::operand(const Arg& a) {
  if (!a.is_tensor()) throw NotYet{"a scalar where a tensor is read"};
  const auto it = at_.find(a.value);
  if (it == at_.end()) throw NotYet{"a value the lowering did not see"};
  return it->second;
}

Tensor Lowering::record(const Node& s) {
  if (s.fn == "custom") {
    std::vector<Tensor> in;
    for (const Arg& a : s.args) in.push_back(operand(a));
    const std::string& y = p_.values[std::size_t(s.result)].name;
    const std::string backward = s.callee + ".backward(" + y + "_fwd.second, " + Expr::hole(0) + ")";
    return tl::detail::call1(custom_call(), in, {{"backward", backward}, {"name", y + "_cts"}});
  }
  const Rule* rule = find_rule(s.fn);
  if (rule == nullptr) throw NotYet{"'" + s.fn + "'"};
  // A reduction or a reduction's rule (its public call takes axes and keepdims) whose
  // arguments are literals is recorded as tracing records it, the axes normalised;
  // others as written.
  if (rule->op->public_call().attributes == std::vector<std::string>{"axes", "keepdims"}) {
    try {
      std::vector<Tensor> in;
      std::vector<Arg> written;
      for (const Arg& a : s.args) {
        if (a.is_tensor())
          in.push_back(operand(a));
        else
          written.push_back(a);
      }
      const tl::Axes axes = axes_written(written, constants_);
      const bool keepdims = keepdims_written(written, constants_);
      return tl::detail::call1(*rule->op, in, tl::detail::reduction_attrs(s.fn, in.at(0), axes, keepdims));
    } catch (const NotYet&) {
    }
  }
  if (!engine_elementwise(*rule)) return passed_on(s, called_op(*rule->op, s));
  const tl::detail::OpDef* def = &elementwise_op(*rule);
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

Tensor Lowering::called_op(const tl::detail::OpDef& def, const Node& s) {
  std::vector<Tensor> in;
  std::vector<std::string> written;
  for (const Arg& a : s.args) {
    if (a.is_tensor())
      in.push_back(operand(a));
    else
      written.push_back(a.text);
  }
  const std::size_t before = f_.body.ops.size();
  Tensor y;
  try {
    y = record_called(def, in, written);
  } catch (const std::invalid_argument& e) {
    throw NotYet{e.what()};
  }
  const std::string& name = p_.values[std::size_t(s.result)].name;
  for (std::size_t k = before; k + 1 < f_.body.ops.size(); ++k)
    for (const ir::ValueId v : f_.body.ops[k].results) {
      inner[v] = name + "_" + std::to_string(inner.size());
      node_of[v] = &s;
    }
  return y;
}

Tensor Lowering::passed_on(const Node& s, const Tensor& y) {
  // A function that may return its operand x unchanged, where x is read elsewhere
  // too: where it did, tracing saw no op, and x's cotangent takes y's shares as they
  // come (the generated code's d_y refers to d_x where y.is_same(x)).
  const Arg& x = s.args.at(0);
  if (may_pass_on(s) && x.is_tensor() && uses_.at(x.value) > 1 && p_.values[std::size_t(x.value)].active) {
    const std::string& yn = p_.values[std::size_t(s.result)].name;
    aliases.push_back({b_.value_of(y), value(x.value),
                       yn + ".is_same(" + p_.values[std::size_t(x.value)].name + ")", true, scope()});
    passing.insert(b_.value_of(y));
  }
  return y;
}

}  // namespace tlaloc_grad

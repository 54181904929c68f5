#include "emit.hpp"

#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "rules.hpp"

namespace tlaloc_grad {
namespace {

// Whether a cotangent variable holds a value at a point of the reverse sweep; an
// undefined tl::Tensor stands for zero, as in the AD engine.
enum class Has { none, yes, maybe };

std::string shorten(const std::string& s) { return s.size() <= 72 ? s : s.substr(0, 69) + "..."; }

class Writer {
 public:
  explicit Writer(const Program& p) : p_(p) { name_scalar_tapes(p.body); }

  std::string function(bool with_value) {
    header("The gradient of " + p_.what + " with respect to " + wrt_names() + ",",
           "derivatives in reverse order (an undefined tensor is a zero cotangent).");
    const std::string g_type = p_.listed ? "std::vector<tl::Tensor>" : "tl::Tensor";
    signature(with_value ? "std::pair<tl::Tensor, " + g_type + ">" : g_type, false);
    forward(p_.body);
    const std::string y = name(p_.result);
    line("if (" + y + ".rank() != 0)");
    line("  throw tl::ValueError(\"tlaloc-grad: " + escape(p_.what) + " must return a scalar, got \" + tl::shape_string(" + y +
         ".shape()));");
    line("");
    std::string g = reverse_sweep("tl::scalar_tensor(1, " + y + ".dtype())");
    if (p_.listed) g = "std::vector<tl::Tensor>{" + g + "}";
    line(with_value ? "return {" + y + ", " + g + "};" : "return " + g + ";");
    return footer();
  }

  // tl::vjp: {f(x), the pullback}, which runs the reverse sweep from a cotangent.
  std::string vjp_function() {
    header("The value and pullback of " + p_.what + " with respect to " + wrt_names() + " (tl::vjp),",
           "derivatives in reverse order from the cotangent ct, in the pullback.");
    signature("std::pair<tl::Tensor, tl::Pullback>", false);
    forward(p_.body);
    const std::string y = name(p_.result);
    line("");
    line("auto pullback = [=](const tl::Tensor& ct) -> std::vector<tl::Tensor> {");
    ++depth_;
    line("if (ct.shape() != " + y + ".shape())");
    line("  throw tl::ShapeError(\"tlaloc-grad: the cotangent of " + escape(p_.what) +
         " has shape \" + tl::shape_string(ct.shape()) + \", the result \" + tl::shape_string(" + y + ".shape()));");
    line("return {" + reverse_sweep("ct") + "};");
    --depth_;
    line("};");
    line("return {" + y + ", tl::Pullback(pullback)};");
    return footer();
  }

  // The reverse sweep from `seed`, the result's cotangent; returns the cotangents of
  // the differentiated parameters, comma-separated.
  std::string reverse_sweep(const std::string& seed) {
    line("// Reverse: d_v is the derivative of the result with respect to v.");
    declare_cotangents(p_.body, true);
    if (active(p_.result)) {
      line(d(p_.result) + " = " + seed + ";");
      has_[p_.result] = Has::yes;
    }
    reverse(p_.body);
    std::string cts;
    for (std::size_t w : p_.wrt) cts += (cts.empty() ? "" : ", ") + or_zeros(p_.params[w].value);
    return cts;
  }
  std::string wrt_names() const {
    std::string s;
    for (std::size_t w : p_.wrt) s += (s.empty() ? "`" : ", `") + name(p_.params[w].value) + "`";
    return s;
  }

  // Forward mode: {f(x), the derivative of f at x along t_x}.
  std::string jvp_function() {
    const std::string wrt = name(p_.params[p_.wrt.at(0)].value);
    header("The derivative of " + p_.what + " at `" + wrt + "` along `t_" + wrt + "` (forward mode),",
           "tangents beside them (t_v is the derivative of v along t_" + wrt + ").");
    signature("std::pair<tl::Tensor, tl::Tensor>", true);
    tangents_ = true;
    forward(p_.body);
    const std::string y = name(p_.result);
    line("return {" + y + ", " + tangent_or_zero(p_.result) + "};");
    return footer();
  }

 private:
  const Program& p_;
  bool tangents_ = false;  // forward mode: each active value's tangent t_<value> beside it
  std::string out_;
  int depth_ = 0;
  std::map<ValueId, Has> has_;
  // Values from outside a tl:: region whose shares the region sums apart (their
  // cotangent variable there), as the engine's rules for the region's op do.
  std::map<ValueId, std::string> alias_;
  // The vector of a loop's scalar per iteration: saved_<name>, numbered where loops
  // one after another have counters of the same name.
  std::map<std::pair<int, std::string>, std::string> scalar_tapes_;
  void name_scalar_tapes(const Block& b) {
    std::set<std::string> taken;
    const std::function<void(const Block&)> walk = [&](const Block& blk) {
      for (const Node& s : blk) {
        for (const auto& [var, type] : s.scalars) {
          std::string tape = "saved_" + var;
          for (int k = 1; !taken.insert(tape).second; ++k) tape = "saved_" + var + "_" + std::to_string(k);
          scalar_tapes_[{s.id, var}] = tape;
        }
        walk(s.body);
        walk(s.orelse);
      }
    };
    walk(b);
  }
  const std::string& scalar_tape(const Node& s, const std::string& var) const { return scalar_tapes_.at({s.id, var}); }

  void header(const std::string& what, const std::string& how) {
    out_ += "// " + what + "\n";
    out_ += "// written by tlaloc-grad at build time: the function's own ops, then their\n// " + how + "\n";
    out_ += "#include <tlaloc/tlaloc.hpp>\n\n#include <cstddef>\n#include <utility>\n#include <vector>\n\n";
    // A loop's reverse sweep restores each iteration's counters under their own names.
    out_ += "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wshadow\"\n\n";
    out_ += "namespace tlaloc_generated {\nnamespace tl = ::tlaloc;\n\n";
  }
  // The parameters, then (forward mode) the tangent, then the captures.
  void signature(const std::string& result, bool tangent) {
    out_ += "inline " + result + " " + p_.name + "(";
    for (std::size_t i = 0; i < p_.params.size(); ++i) {
      if (tangent && i == p_.explicit_params) out_ += ", const tl::Tensor& t_" + name(p_.params[p_.wrt.at(0)].value);
      out_ += (i ? ", " : "") + p_.params[i].type + " " + p_.params[i].name;
    }
    if (tangent && p_.params.size() == p_.explicit_params) out_ += ", const tl::Tensor& t_" + name(p_.params[p_.wrt.at(0)].value);
    out_ += ") {\n";
    depth_ = 1;
  }
  std::string footer() {
    out_ += "}\n\n}  // namespace tlaloc_generated\n\n#pragma GCC diagnostic pop\n";
    return out_;
  }
  std::string tangent_or_zero(ValueId v) const {
    return active(v) ? "t_" + name(v) : "tl::zeros_like(" + name(v) + ")";
  }

  const std::string& name(ValueId v) const { return p_.values[std::size_t(v)].name; }
  bool active(ValueId v) const { return v >= 0 && p_.values[std::size_t(v)].active; }
  std::string d(ValueId v) const {
    const auto it = alias_.find(v);
    return it != alias_.end() ? it->second : "d_" + name(v);
  }
  // v's cotangent, zeros where it has none (the engine's or_zeros).
  std::string or_zeros(ValueId v) const {
    const std::string zero = "tl::zeros_like(" + name(v) + ")";
    switch (state(v)) {
      case Has::none: return zero;
      case Has::yes: return d(v);
      case Has::maybe: return d(v) + ".defined() ? " + d(v) + " : " + zero;
    }
    return zero;
  }
  Has state(ValueId v) const {
    const auto it = has_.find(v);
    return it == has_.end() ? Has::none : it->second;
  }
  static std::string escape(const std::string& s) {
    std::string r;
    for (char c : s) r += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return r;
  }
  void line(const std::string& s) {
    if (s.empty()) {
      out_ += "\n";
      return;
    }
    out_ += std::string(std::size_t(depth_) * 2, ' ') + s + "\n";
  }

  // ---- forward ----------------------------------------------------------------

  std::string spelled(const Node& s, Names& n) const {
    for (const Arg& a : s.args) {
      n.args.push_back(a.is_tensor() ? name(a.value) : a.text);
      n.tensor.push_back(a.is_tensor());
    }
    n.y = name(s.result);
    n.g = "d_" + n.y;
    if (s.fn.empty()) return s.text;
    if (s.fn == "scan_slice") return step_of(n.args[0], s.text);
    if (s.fn == "custom") {
      std::string call = s.callee + "(";
      for (std::size_t i = 0; i < n.args.size(); ++i) call += (i ? ", " : "") + n.args[i];
      return call + ")";
    }
    const Rule& r = *find_rule(s.fn);
    return r.spell(r, n);
  }

  // Step `at` of a sequence (a tl::scan's xs, their tangents or the ys' cotangents).
  static std::string step_of(const std::string& seq, const std::string& at) {
    return "tl::squeeze(tl::slice(" + seq + ", 0, " + at + ", " + at + " + 1), 0)";
  }

  // What a block defines that is declared before a branch holding it, so that the
  // reverse sweep sees it (and what a loop saves per iteration): values, conditions,
  // custom rules' forward halves, and the loops inside (their vectors and counts).
  struct Defined {
    std::vector<ValueId> values;
    std::vector<int> conds;
    std::vector<ValueId> customs;
    std::vector<const Node*> loops;
  };
  void defined_in(const Block& b, Defined& d) const {
    for (const Node& s : b) {
      if (s.kind == Node::Kind::op) {
        d.values.push_back(s.result);
        if (s.fn == "custom" && active(s.result)) d.customs.push_back(s.result);
      }
      if (s.kind == Node::Kind::loop) d.loops.push_back(&s);
      for (const Phi& ph : s.phis) d.values.push_back(ph.out);
      if (s.ys >= 0) d.values.push_back(s.ys);
      if (s.kind != Node::Kind::branch) continue;
      d.conds.push_back(s.id);
      defined_in(s.body, d);
      defined_in(s.orelse, d);
    }
  }
  Defined defined_in(const Block& b) const {
    Defined d;
    defined_in(b, d);
    return d;
  }
  // A custom rule's forward half: its value and the residuals its backward half takes.
  static constexpr const char* kForwardHalf = "std::pair<tl::Tensor, std::vector<tl::Tensor>>";

  void declare_hoisted(const Defined& d) {
    for (ValueId v : d.values) {
      line("tl::Tensor " + name(v) + ";");
      if (tangents_ && active(v)) line("tl::Tensor t_" + name(v) + ";");
    }
    for (int c : d.conds) line("bool cond_" + std::to_string(c) + " = false;");
    if (tangents_) return;
    for (ValueId v : d.customs) line(std::string(kForwardHalf) + " " + name(v) + "_fwd;");
    for (const Node* l : d.loops) {
      for (const auto& [tape, type] : tapes(*l)) line(type + " " + tape + ";");
      line("std::size_t steps_" + std::to_string(l->id) + " = 0;");
    }
  }

  void forward(const Block& b, bool hoisted = false) {
    for (const Node& s : b) {
      switch (s.kind) {
        case Node::Kind::scalar: line(s.text); break;
        case Node::Kind::op: forward_op(s, hoisted); break;
        case Node::Kind::branch: forward_branch(s, hoisted); break;
        case Node::Kind::loop: forward_loop(s, hoisted); break;
      }
    }
  }

  void forward_op(const Node& s, bool hoisted) {
    Names n;
    const std::string rhs = spelled(s, n);
    const std::string comment = "  // " + (s.fn.empty() ? "" : s.fn + ", ") + "line " + std::to_string(s.loc.line) + ": " +
                                shorten(s.source);
    const std::string decl = hoisted ? "" : "const tl::Tensor ";
    if (s.fn == "custom" && active(s.result)) return custom_forward(s, n, comment, decl);
    line(decl + n.y + " = " + rhs + ";" + comment);
    if (s.fn == "scan_slice" && tangents_ && active(s.result))
      line(decl + "t_" + n.y + " = " + step_of("t_" + n.args[0], s.text) + ";");
    if (s.fn.empty() || s.fn == "custom" || s.fn == "scan_slice" || !active(s.result)) return;
    const Rule& r = *find_rule(s.fn);
    if (r.check != nullptr) line(r.check(n));
    if (!tangents_) return;
    std::vector<std::string> t;
    for (const Arg& a : s.args) t.push_back(a.is_tensor() && active(a.value) ? "t_" + name(a.value) : "");
    if (r.jvp == nullptr) refuse(Code::not_differentiable, s.loc, "tl::" + s.fn + " has no build-time forward rule");
    prelude(s, r, n);
    line(decl + "t_" + n.y + " = " + r.jvp(r, n, t) + ";");
  }

  // A custom rule's forward half: reverse mode keeps its residuals for the backward
  // half; forward mode applies its JVP rule.
  void custom_forward(const Node& s, const Names& n, const std::string& comment, const std::string& decl) {
    std::string args;
    for (std::size_t i = 0; i < n.args.size(); ++i) args += (i ? ", " : "") + n.args[i];
    if (!tangents_) {
      const std::string fwd_decl = decl.empty() ? "" : "const " + std::string(kForwardHalf) + " ";
      line(fwd_decl + n.y + "_fwd = " + s.callee + ".forward(" + args + ");" + comment);
      line(decl + n.y + " = " + n.y + "_fwd.first;");
      return;
    }
    std::string tangents;
    for (std::size_t i = 0; i < s.args.size(); ++i)
      tangents += (i ? ", " : "") + tangent_or_zero(s.args[i].value);
    line("const std::pair<tl::Tensor, tl::Tensor> " + n.y + "_jvp = " + s.callee + ".jvp({" + args + "}, {" + tangents +
         "});" + comment);
    line(decl + n.y + " = " + n.y + "_jvp.first;");
    line(decl + "t_" + n.y + " = " + n.y + "_jvp.second;");
  }

  // out = from, and in forward mode t_out = from's tangent.
  void assign(ValueId out, ValueId from, const std::string& decl = "") {
    line(decl + name(out) + " = " + name(from) + ";");
    if (tangents_ && active(out)) line(decl + "t_" + name(out) + " = " + tangent_or_zero(from) + ";");
  }

  void forward_branch(const Node& s, bool hoisted) {
    const std::string cond = "cond_" + std::to_string(s.id);
    if (!hoisted) declare_hoisted(defined_in({s}));
    line(cond + " = " + s.text + ";  // line " + std::to_string(s.loc.line));
    line("if (" + cond + ") {");
    ++depth_;
    forward(s.body, true);
    for (const Phi& ph : s.phis) assign(ph.out, ph.first);
    --depth_;
    line("} else {");
    ++depth_;
    forward(s.orelse, true);
    for (const Phi& ph : s.phis) assign(ph.out, ph.second);
    --depth_;
    line("}");
  }

  // Every value a loop body defines, saved per iteration for the reverse sweep (the
  // values after its inner loops included; their iterations are in their own vectors).
  std::vector<ValueId> loop_values(const Node& s) const {
    std::vector<ValueId> vals;
    for (const Phi& ph : s.phis) vals.push_back(ph.in);
    for (ValueId v : defined_in(s.body).values) vals.push_back(v);
    return vals;
  }
  // The vectors (name, type) a loop fills, one entry per iteration: its values,
  // conditions, counters and custom rules' forward halves, and the vectors and step
  // counts of the loops inside it.
  std::vector<std::pair<std::string, std::string>> tapes(const Node& s) const {
    std::vector<std::pair<std::string, std::string>> t;
    for (ValueId v : loop_values(s)) t.push_back({"saved_" + name(v), "std::vector<tl::Tensor>"});
    for (int c : loop_conds(s)) t.push_back({"saved_cond_" + std::to_string(c), "std::vector<bool>"});
    for (const auto& [var, type] : s.scalars) t.push_back({scalar_tape(s, var), "std::vector<" + type + ">"});
    for (ValueId v : defined_in(s.body).customs)
      t.push_back({"saved_" + name(v) + "_fwd", "std::vector<" + std::string(kForwardHalf) + ">"});
    for (const auto& [var, type] : inner_state(s)) t.push_back({"saved_" + var, "std::vector<" + type + ">"});
    return t;
  }
  // What the loops inside a loop's body (in branches too) leave for the reverse
  // sweep, per iteration.
  std::vector<std::pair<std::string, std::string>> inner_state(const Node& s) const {
    std::vector<std::pair<std::string, std::string>> t;
    for (const Node* n : defined_in(s.body).loops) {
      for (const auto& tape : tapes(*n)) t.push_back(tape);
      t.push_back({"steps_" + std::to_string(n->id), "std::size_t"});
    }
    return t;
  }
  std::vector<int> loop_conds(const Node& s) const { return defined_in(s.body).conds; }

  // Reverse mode saves what each iteration computed; forward mode carries tangents.
  void forward_loop(const Node& s, bool hoisted) {
    const std::string id = std::to_string(s.id), steps = "steps_" + id;
    const bool save = !tangents_;
    line("// The " + (s.structured.empty() ? std::string("loop") : s.structured) + " at line " + std::to_string(s.loc.line) +
         (save ? ", saving what the reverse sweep needs." : ", tangents carried beside the values."));
    for (const Phi& ph : s.phis) assign(ph.out, ph.first, hoisted ? "" : "tl::Tensor ");
    if (save && !hoisted) {
      for (const auto& [tape, type] : tapes(s)) line(type + " " + tape + ";");
      line("std::size_t " + steps + " = 0;");
    }
    const bool stacks = s.ys >= 0, tangent_stacks = stacks && tangents_ && active(s.ys);
    if (stacks) line("std::vector<tl::Tensor> " + name(s.ys) + "_steps(" + s.count + ");");
    if (tangent_stacks) line("std::vector<tl::Tensor> t_" + name(s.ys) + "_steps(" + s.count + ");");
    if (!s.head.empty()) line("for (;;) {");
    else if (s.init.empty() && s.step.empty()) line("while (" + s.text + ") {");
    else line("for (" + s.init + "; " + s.text + "; " + s.step + ") {");
    ++depth_;
    for (const Phi& ph : s.phis) assign(ph.in, ph.out, "const tl::Tensor ");
    if (!s.head.empty()) {
      forward(s.head);
      line("if (!" + s.text + ") break;");
    }
    if (!s.break_before.empty()) line("if (" + s.break_before + ") break;");
    if (save)
      for (const auto& [var, type] : s.scalars) line(scalar_tape(s, var) + ".push_back(" + var + ");");
    forward(s.body);
    if (save) {
      for (ValueId v : loop_values(s)) line("saved_" + name(v) + ".push_back(" + name(v) + ");");
      for (int c : loop_conds(s)) line("saved_cond_" + std::to_string(c) + ".push_back(cond_" + std::to_string(c) + ");");
      for (ValueId v : defined_in(s.body).customs) line("saved_" + name(v) + "_fwd.push_back(" + name(v) + "_fwd);");
      for (const auto& [var, type] : inner_state(s)) line("saved_" + var + ".push_back(std::move(" + var + "));");
    }
    if (stacks) line(name(s.ys) + "_steps[" + s.index + "] = " + name(s.y) + ";");
    if (tangent_stacks) line("t_" + name(s.ys) + "_steps[" + s.index + "] = " + tangent_or_zero(s.y) + ";");
    for (const Phi& ph : s.phis) assign(ph.out, ph.second);
    if (save) line("++" + steps + ";");
    if (!s.break_after.empty()) line("if (" + s.break_after + ") break;");
    --depth_;
    line("}");
    const std::string decl = hoisted ? "" : "const tl::Tensor ";
    if (stacks) line(decl + name(s.ys) + " = tl::stack(" + name(s.ys) + "_steps, 0);");
    if (tangent_stacks) line(decl + "t_" + name(s.ys) + " = tl::stack(t_" + name(s.ys) + "_steps, 0);");
  }

  // ---- reverse ----------------------------------------------------------------

  // d_v for the active values block b defines (phi outs of its branches and loops
  // included; what a branch's blocks define is declared in the branch's reverse).
  void declare_cotangents(const Block& b, bool with_params) {
    std::vector<ValueId> vals;
    if (with_params)
      for (const Param& prm : p_.params)
        if (prm.value >= 0) vals.push_back(prm.value);
    for (const Node& s : b) {
      if (s.kind == Node::Kind::op) vals.push_back(s.result);
      for (const Phi& ph : s.phis) vals.push_back(ph.out);
      if (s.ys >= 0) vals.push_back(s.ys);
    }
    for (ValueId v : vals)
      if (active(v)) line("tl::Tensor d_" + name(v) + ";");
  }

  // d_v += contribution, as the engine's add_tangents: existing + new.
  void accumulate(ValueId v, const std::string& c) {
    if (!active(v)) return;
    const std::string d = this->d(v);
    const bool simple = c.find(' ') == std::string::npos;
    const std::string pc = simple ? c : "(" + c + ")";
    switch (state(v)) {
      case Has::none: line(d + " = " + c + ";"); break;
      case Has::yes: line(d + " = " + d + " + " + pc + ";"); break;
      case Has::maybe: line(d + " = " + d + ".defined() ? " + d + " + " + pc + " : " + pc + ";"); break;
    }
    has_[v] = Has::yes;
  }
  // Flows d_from into d_to, when d_from may hold something.
  void pass(ValueId from, ValueId to) {
    if (!active(from) || !active(to)) return;
    const Has h = state(from);
    if (h == Has::none) return;
    if (h == Has::yes) return accumulate(to, d(from));
    guarded(d(from), [&] { accumulate(to, d(from)); });
  }
  // Code run only when `cotangent` is defined: what it adds is "maybe" after it.
  template <class F>
  void guarded(const std::string& cotangent, F body) {
    const auto before = has_;
    line("if (" + cotangent + ".defined()) {");
    ++depth_;
    body();
    --depth_;
    line("}");
    join(before, has_);
  }
  void join(const std::map<ValueId, Has>& a, const std::map<ValueId, Has>& b) {
    std::map<ValueId, Has> r;
    std::set<ValueId> keys;
    for (const auto& kv : a) keys.insert(kv.first);
    for (const auto& kv : b) keys.insert(kv.first);
    for (ValueId k : keys) {
      const Has x = a.count(k) ? a.at(k) : Has::none, y = b.count(k) ? b.at(k) : Has::none;
      r[k] = x == y ? x : Has::maybe;
    }
    has_ = std::move(r);
  }

  void reverse(const Block& b) {
    for (auto it = b.rbegin(); it != b.rend(); ++it) {
      switch (it->kind) {
        case Node::Kind::scalar: break;
        case Node::Kind::op: reverse_op(*it); break;
        case Node::Kind::branch: it->structured.empty() ? reverse_branch(*it) : reverse_cond(*it); break;
        case Node::Kind::loop: it->structured.empty() ? reverse_loop(*it) : reverse_structured_loop(*it); break;
      }
    }
  }

  void reverse_op(const Node& s) {
    // A scan's slices get their cotangents from the scan (reverse_structured_loop).
    if (s.fn.empty() || s.fn == "scan_slice" || !active(s.result) || state(s.result) == Has::none) return;
    Names n;
    spelled(s, n);
    if (s.fn == "custom") {
      return guarded_if_maybe(s.result, [&] {
        line("// the custom rule's backward half, line " + std::to_string(s.loc.line));
        line("const std::vector<tl::Tensor> " + n.y + "_cts = " + s.callee + ".backward(" + n.y + "_fwd.second, " + n.g + ");");
        for (std::size_t i = 0; i < s.args.size(); ++i)
          if (active(s.args[i].value)) accumulate(s.args[i].value, n.y + "_cts[" + std::to_string(i) + "]");
      });
    }
    const Rule& r = *find_rule(s.fn);
    const auto apply = [&] {
      line("// " + s.fn + ", line " + std::to_string(s.loc.line));
      prelude(s, r, n);
      for (std::size_t i = 0; i < s.args.size(); ++i) {
        if (!s.args[i].is_tensor() || !active(s.args[i].value)) continue;
        std::string c;
        try {
          c = r.vjp(r, i, n);
        } catch (const std::invalid_argument& e) {
          refuse(Code::not_differentiable, s.loc, "tl::" + s.fn + ": " + e.what());
        }
        if (!c.empty()) accumulate(s.args[i].value, c);
      }
    };
    guarded_if_maybe(s.result, apply);
  }
  // The values of the op's own decomposition its derivative needs, computed again.
  void prelude(const Node& s, const Rule& r, const Names& n) {
    if (r.prelude == nullptr) return;
    try {
      for (const std::string& l : r.prelude(n)) line(l);
    } catch (const std::invalid_argument& e) {
      refuse(Code::not_differentiable, s.loc, "tl::" + s.fn + ": " + e.what());
    }
  }

  template <class F>
  void guarded_if_maybe(ValueId v, F body) {
    if (state(v) == Has::yes) body();
    else guarded(d(v), body);
  }

  void scalars_of(const Block& b) {
    for (const Node& s : b)
      if (s.kind == Node::Kind::scalar && !s.assignment) line(s.text);
  }

  void reverse_branch(const Node& s) {
    const auto before = has_;
    const auto side = [&](const Block& blk, bool first) {
      has_ = before;
      ++depth_;
      scalars_of(blk);
      declare_cotangents(blk, false);
      for (const Phi& ph : s.phis) pass(ph.out, first ? ph.first : ph.second);
      reverse(blk);
      --depth_;
      return has_;
    };
    line("if (cond_" + std::to_string(s.id) + ") {");
    const auto then_state = side(s.body, true);
    line("} else {");
    const auto else_state = side(s.orelse, false);
    line("}");
    join(then_state, else_state);
  }

  // What iteration k of loop s saved, under the names the forward pass gave it.
  void restore_iteration(const Node& s, const std::string& k) {
    for (const auto& [var, type] : s.scalars)
      line("[[maybe_unused]] const " + type + " " + var + " = " + scalar_tape(s, var) + "[" + k + "];");
    for (ValueId v : loop_values(s)) line("[[maybe_unused]] const tl::Tensor& " + name(v) + " = saved_" + name(v) + "[" + k + "];");
    for (int c : loop_conds(s))
      line("[[maybe_unused]] const bool cond_" + std::to_string(c) + " = saved_cond_" + std::to_string(c) + "[" + k + "];");
    for (ValueId v : defined_in(s.body).customs)
      line("[[maybe_unused]] const " + std::string(kForwardHalf) + "& " + name(v) + "_fwd = saved_" + name(v) + "_fwd[" + k + "];");
    for (const auto& [var, type] : inner_state(s))
      line("[[maybe_unused]] const " + type + "& " + var + " = saved_" + var + "[" + k + "];");
    scalars_of(s.body);
  }

  void reverse_loop(const Node& s) {
    // Inside the loop anything outside it may or may not have received a share yet,
    // and each phi's d_out is the next iteration's d_in, possibly undefined.
    for (ValueId v = 0; v < ValueId(p_.values.size()); ++v)
      if (active(v) && state(v) == Has::none) has_[v] = Has::maybe;
    for (const Phi& ph : s.phis) has_[ph.out] = Has::maybe;
    std::vector<ValueId> body = loop_values(s);
    for (ValueId v : body) has_.erase(v);
    const auto outside = has_;
    const std::string id = std::to_string(s.id);
    line("// Reverse of the loop at line " + std::to_string(s.loc.line) + ", last iteration first.");
    const std::string k = "k" + id;  // the iteration, last first
    line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
    ++depth_;
    restore_iteration(s, k);
    // In the first iteration a carried value is its initial value, whose shares then
    // go straight to it, in the order the unrolled loop gives them.
    for (const Phi& ph : s.phis) {
      if (!active(ph.in)) continue;
      if (!active(ph.first)) {
        line("tl::Tensor d_" + name(ph.in) + ";");
        continue;
      }
      line("tl::Tensor d_" + name(ph.in) + "_next;");
      line("tl::Tensor& d_" + name(ph.in) + " = " + k + " == 0 ? " + d(ph.first) + " : d_" + name(ph.in) + "_next;");
      has_[ph.in] = Has::maybe;
    }
    declare_cotangents(s.body, false);
    for (const Phi& ph : s.phis) pass(ph.out, ph.second);
    reverse(s.body);
    for (const Phi& ph : s.phis)
      if (active(ph.out)) line(d(ph.out) + " = d_" + name(ph.in) + ";");
    --depth_;
    line("}");
    has_ = outside;
    // Without iterations the initial values take the shares directly.
    std::vector<const Phi*> direct;
    for (const Phi& ph : s.phis)
      if (active(ph.out) && active(ph.first)) direct.push_back(&ph);
    if (!direct.empty()) {
      line("if (steps_" + id + " == 0) {");
      ++depth_;
      for (const Phi* ph : direct) pass(ph->out, ph->first);
      --depth_;
      line("}");
    }
    for (const Phi& ph : s.phis)
      if (active(ph.out) && !active(ph.first)) pass(ph.out, ph.first);
  }

  // ---- tl::cond, tl::fori_loop, tl::while_loop ----------------------------------

  // The active values defined before node s that its blocks use (the free values of
  // the op it is when traced).
  std::vector<ValueId> free_values(const Node& s) const {
    std::set<ValueId> used, defined;
    for (const Phi& ph : s.phis) {
      defined.insert(ph.in);
      used.insert(ph.second);
      if (s.kind == Node::Kind::branch) used.insert(ph.first);
    }
    uses(s.body, used, defined, s.x);
    uses(s.orelse, used, defined, s.x);
    std::vector<ValueId> free;
    for (ValueId v : used)
      if (v >= 0 && active(v) && defined.count(v) == 0) free.push_back(v);
    return free;
  }
  // own_slice: a scan's slice of its sequence, an operand of the scan, not a use.
  static void uses(const Block& b, std::set<ValueId>& used, std::set<ValueId>& defined, ValueId own_slice = -1) {
    for (const Node& n : b) {
      for (const Arg& a : n.args)
        if (a.is_tensor() && (n.result != own_slice || own_slice < 0)) used.insert(a.value);
      if (n.ys >= 0) defined.insert(n.ys);
      defined.insert(n.result);
      for (const Phi& ph : n.phis) {
        defined.insert({ph.out, ph.in});
        used.insert({ph.first, ph.second});
      }
      uses(n.body, used, defined);
      uses(n.orelse, used, defined);
    }
  }

  // Runs body with the shares of `free` going to variables of their own, named with
  // `suffix` and starting undefined; the names and states outside come back after.
  template <class F>
  void apart(const std::vector<ValueId>& free, const std::string& suffix, F body) {
    const auto alias = alias_;
    std::map<ValueId, Has> outside;
    for (ValueId w : free) {
      outside[w] = state(w);
      alias_[w] = "d_" + name(w) + suffix;
      has_[w] = Has::none;
    }
    body();
    alias_ = alias;
    for (const auto& [w, h] : outside) has_[w] = h;
  }

  // A tl::cond traced on a condition known only at run time is an `if` op: each
  // branch's reverse gives the cotangents of what it uses from outside, zeros where it
  // gave none, and they are added there after it.
  void reverse_cond(const Node& s) {
    const std::vector<ValueId> free = free_values(s);
    const std::string id = std::to_string(s.id);
    line("// Reverse of the tl::cond at line " + std::to_string(s.loc.line) +
         ": each branch sums what it gives the values it uses from outside,");
    line("// which are added to them after it (the engine's rule for the traced if).");
    for (ValueId w : free) line("tl::Tensor d_" + name(w) + "_cond" + id + ";");
    const auto before = has_;
    const auto side = [&](const Block& blk, bool first) {
      has_ = before;
      ++depth_;
      apart(free, "_cond" + id, [&] {
        scalars_of(blk);
        declare_cotangents(blk, false);
        for (const Phi& ph : s.phis) pass(ph.out, first ? ph.first : ph.second);
        reverse(blk);
        for (ValueId w : free)
          if (state(w) != Has::yes) line(d(w) + " = " + or_zeros(w) + ";");
      });
      --depth_;
    };
    line("if (cond_" + id + ") {");
    side(s.body, true);
    line("} else {");
    side(s.orelse, false);
    line("}");
    has_ = before;
    for (ValueId w : free) accumulate(w, "d_" + name(w) + "_cond" + id);
  }

  // tl::fori_loop (a scan when traced) and tl::while_loop: the reverse loop carries the
  // carried value's cotangent (zeros where it has none) and sums each iteration's
  // shares of the values the body uses from outside; both are added after the loop.
  // An empty fori_loop records no scan: the result is the initial value.
  void reverse_structured_loop(const Node& s) {
    std::vector<const Phi*> carried;
    for (const Phi& ph : s.phis)
      if (active(ph.out)) carried.push_back(&ph);
    // tl::scan: its ys' cotangent seeds each step's y, and its xs get each step's
    // slice's cotangent, stacked.
    const bool seeds = s.ys >= 0 && active(s.ys) && state(s.ys) != Has::none;
    const bool sequence = s.xs >= 0 && active(s.xs);
    if (carried.empty() && !seeds) return;
    const std::vector<ValueId> free = free_values(s);
    const std::string id = std::to_string(s.id), k = "k" + id;
    const bool empty_is_init = s.structured == "tl::fori_loop";
    const std::string slices = sequence ? "d_" + name(s.x) + "_steps" : "";
    const auto carry = [&](const Phi* ph) { return "d_" + name(ph->out) + "_carry"; };
    const auto sum = [&](ValueId w) { return "d_" + name(w) + "_sum" + id; };
    line("// Reverse of the " + s.structured + " at line " + std::to_string(s.loc.line) +
         ", last iteration first: the carried value's cotangent");
    line("// and the sums of each iteration's shares, added after it (the engine's rule for the traced loop).");
    const auto outside = has_;
    if (empty_is_init) {
      line("if (steps_" + id + " > 0) {");
      ++depth_;
    }
    for (const Phi* ph : carried) line("tl::Tensor " + carry(ph) + " = " + or_zeros(ph->out) + ";");
    for (ValueId w : free) line("tl::Tensor " + sum(w) + " = tl::zeros_like(" + name(w) + ");");
    if (sequence) line("std::vector<tl::Tensor> " + slices + "(" + s.count + ");");
    line("for (std::size_t " + k + " = steps_" + id + "; " + k + "-- > 0;) {");
    ++depth_;
    restore_iteration(s, k);
    for (ValueId v : loop_values(s)) has_.erase(v);
    for (const Phi* ph : carried) line("tl::Tensor d_" + name(ph->in) + ";");
    declare_cotangents(s.body, false);
    apart(free, "_step" + id, [&] {
      for (ValueId w : free) line("tl::Tensor " + d(w) + ";");
      for (const Phi* ph : carried) accumulate(ph->second, carry(ph));
      if (seeds) guarded_if_maybe(s.ys, [&] { accumulate(s.y, step_of(d(s.ys), s.index)); });
      reverse(s.body);
      for (const Phi* ph : carried) line(carry(ph) + " = " + or_zeros(ph->in) + ";");
      if (sequence) line(slices + "[" + s.index + "] = " + or_zeros(s.x) + ";");
      for (ValueId w : free) {
        if (state(w) == Has::yes) line(sum(w) + " = " + sum(w) + " + " + d(w) + ";");
        if (state(w) == Has::maybe) line("if (" + d(w) + ".defined()) " + sum(w) + " = " + sum(w) + " + " + d(w) + ";");
      }
    });
    --depth_;
    line("}");
    has_ = outside;
    for (const Phi* ph : carried) accumulate(ph->first, carry(ph));
    for (ValueId w : free) accumulate(w, sum(w));
    if (sequence) accumulate(s.xs, "tl::stack(" + slices + ", 0)");
    if (!empty_is_init) return;
    const auto ran = has_;
    has_ = outside;
    --depth_;
    line("} else {");
    ++depth_;
    for (const Phi* ph : carried) pass(ph->out, ph->first);
    --depth_;
    line("}");
    join(ran, has_);
  }
};

}  // namespace

std::string emit_gradient(const Program& p, bool with_value) { return Writer(p).function(with_value); }
std::string emit_jvp(const Program& p) { return Writer(p).jvp_function(); }
std::string emit_vjp(const Program& p) { return Writer(p).vjp_function(); }

}  // namespace tlaloc_grad

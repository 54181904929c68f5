#include "emit.hpp"

#include <functional>
#include <set>

#include "engine_sweep.hpp"
#include "writer.hpp"

namespace tlaloc_grad {

std::string shorten(const std::string& s) { return s.size() <= 72 ? s : s.substr(0, 69) + "..."; }

std::string Writer::function(bool with_value) {
  header("The gradient of " + p_.what + " with respect to " + wrt_names() + ",",
         "derivatives in reverse order (an undefined tensor is a zero cotangent).");
  const Param& first = p_.params[p_.wrt.at(0)];
  const std::string g_type = first.named               ? "tl::nn::Params"
                             : p_.listed || first.list ? "std::vector<tl::Tensor>"
                                                       : "tl::Tensor";
  signature(with_value ? "std::pair<tl::Tensor, " + g_type + ">" : g_type, false);
  forward(p_.body);
  const std::string y = name(p_.result);
  body_.open_if(code::Expr::text(y + ".rank() != 0"));
  line("throw tl::ValueError(\"tlaloc-grad: " + escape(p_.what) +
       " must return a scalar, got \" + tl::shape_string(" + y + ".shape()));");
  body_.close();
  body_.add(code::Stmt::blank());
  std::string g = reverse_sweep("tl::scalar_tensor(1, " + y + ".dtype())");
  if (p_.listed) g = "std::vector<tl::Tensor>{" + g + "}";
  line(with_value ? "return {" + y + ", " + g + "};" : "return " + g + ";");
  return footer();
}

// tl::vjp: {f(x), the pullback}, which runs the reverse sweep from a cotangent.
std::string Writer::vjp_function() {
  header("The value and pullback of " + p_.what + " with respect to " + wrt_names() + " (tl::vjp),",
         "derivatives in reverse order from the cotangent ct, in the pullback.");
  signature("std::pair<tl::Tensor, tl::Pullback>", false);
  forward(p_.body);
  const std::string y = name(p_.result);
  body_.add(code::Stmt::blank());
  body_.open("auto pullback = [=](const tl::Tensor& ct) -> std::vector<tl::Tensor>", "};");
  body_.open_if(code::Expr::text("ct.shape() != " + y + ".shape()"));
  line("throw tl::ShapeError(\"tlaloc-grad: the cotangent of " + escape(p_.what) +
       " has shape \" + tl::shape_string(ct.shape()) + \", the result \" + tl::shape_string(" + y +
       ".shape()));");
  body_.close();
  line("return {" + reverse_sweep("ct") + "};");
  body_.close();
  line("return {" + y + ", tl::Pullback(pullback)};");
  return footer();
}

// The reverse sweep from `seed`, the result's cotangent; returns the cotangents of
// the differentiated parameters, comma-separated.
std::string Writer::reverse_sweep(const std::string& seed) {
  ForwardPass forward;
  forward.at = [&](const Loc& l) { return at(l); };
  forward.restore = [&](const Node& s, const std::string& k) {
    return statements_of([&] { restore_iteration(s, k); });
  };
  forward.scalars = [&](const Block& b) { return statements_of([&] { scalars_of(b); }); };
  const Sweep sweep = engine_sweep(p_, seed, forward);
  if (sweep.refused_by_rule)
    refuse(Code::not_differentiable, p_.loc, "the reverse sweep of " + p_.what + ": " + sweep.not_taken);
  if (!sweep.not_taken.empty())
    refuse(Code::unsupported_construct, sweep.where.file.empty() ? p_.loc : sweep.where,
           "the AD engine's reverse sweep of " + p_.what + " cannot be written at build time yet (" +
               sweep.not_taken +
               "); leave this transform to trace at run time (docs/BUILD_TIME_GRADIENTS.md, \"Refusals\")");
  line("// Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the");
  line("// result with respect to v, its shares summed in the engine's order.");
  body_.add_all(sweep.body);
  std::string cts;
  for (std::size_t k = 0; k < p_.wrt.size(); ++k) {
    const std::size_t w = p_.wrt[k];
    const Param& prm = p_.params[w];
    if (prm.list) {
      // Elements nothing read get zeros, as the engine gives an unused argument.
      body_.open("for (std::size_t k = 0; k < " + prm.name + ".size(); ++k)");
      body_.add(code::Stmt::guarded(
          code::Expr::text("!d_" + prm.name + "[k].defined()"),
          code::Stmt::assign("d_" + prm.name + "[k]",
                             code::Expr::text("tl::zeros_like(" + prm.element("k") + ")"))));
      body_.close();
    }
    // A Params' gradient has its names (tl::grad's).
    const std::string list = prm.named ? prm.name + ".with_tensors(d_" + prm.name + ")" : "d_" + prm.name;
    cts += (cts.empty() ? "" : ", ") + (prm.list ? list : sweep.cotangents[k]);
  }
  return cts;
}

std::string Writer::wrt_names() const {
  std::string s;
  for (std::size_t w : p_.wrt) s += (s.empty() ? "`" : ", `") + p_.params[w].name + "`";
  return s;
}

// Forward mode: {f(x), the derivative of f at x along t_x}; x may be a list of
// tensors, t_x one tangent for each. `checked`: the tangents are checked as tl::jvp
// checks them (tl::hessian's own basis vectors need no check).
std::string Writer::jvp_function(bool checked, code::Block after) {
  const std::string wrt = wrt_name();
  header("The derivative of " + p_.what + " at `" + wrt + "` along `t_" + wrt + "` (forward mode),",
         "tangents beside them (t_v is the derivative of v along t_" + wrt + ").");
  signature("std::pair<tl::Tensor, tl::Tensor>", true);
  tangents_ = true;
  if (checked)
    line(p_.params[p_.wrt.at(0)].list ? "tl::check_jvp_arguments(" + wrt + ", t_" + wrt + ");"
                                      : "tl::check_jvp_arguments({" + wrt + "}, {t_" + wrt + "});");
  forward(p_.body);
  const std::string y = name(p_.result);
  line("return {" + y + ", " + tangent_or_zero(p_.result) + "};");
  return footer(std::move(after));
}

// Forward mode's differentiated parameter, a tensor or a list of them.
std::string Writer::wrt_name() const {
  const Param& prm = p_.params[p_.wrt.at(0)];
  return prm.list ? prm.name : name(prm.value);
}

void Writer::name_scalar_tapes(const Block& b) {
  std::set<std::string> taken;
  const std::function<void(const Block&)> walk = [&](const Block& blk) {
    for (const Node& s : blk) {
      for (const auto* list : {&s.scalars, &s.kept})
        for (const auto& [var, type] : *list) {
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

void Writer::header(const std::string& what, const std::string& how) {
  std::vector<std::string> lines{
      "// " + what, "// written by tlaloc-grad at build time: the function's own ops, then their",
      "// " + how, "#include <tlaloc/tlaloc.hpp>", "#include <tlaloc/derivatives.hpp>"};
  for (const std::string& h : p_.headers) lines.push_back("#include <" + h + ">");
  // A loop's reverse sweep restores each iteration's counters under their own names.
  for (const char* l : {"", "#include <cstddef>", "#include <utility>", "#include <vector>", "",
                        "#pragma GCC diagnostic push", "#pragma GCC diagnostic ignored \"-Wshadow\"", "",
                        "namespace tlaloc_generated {", "namespace tl = ::tlaloc;", ""})
    lines.emplace_back(l);
  for (const std::string& l : lines) file_.push_back(l.empty() ? code::Stmt::blank() : code::Stmt::line(l));
}

// The parameters, then (forward mode) the tangent, then the captures.
void Writer::signature(const std::string& result, bool tangent) {
  head_ = "inline " + result + " " + p_.name + "(";
  std::string t;
  if (tangent) {
    const bool list = p_.params[p_.wrt.at(0)].list;
    t = ", " + std::string(list ? "const std::vector<tl::Tensor>&" : "const tl::Tensor&") + " t_" +
        wrt_name();
  }
  for (std::size_t i = 0; i < p_.params.size(); ++i) {
    if (i == p_.explicit_params) head_ += t;
    head_ += (i ? ", " : "") + p_.params[i].type + " " + p_.params[i].name;
  }
  if (p_.params.size() == p_.explicit_params) head_ += t;
  head_ += ")";
}

std::string Writer::footer(code::Block after) {
  file_.push_back(code::Stmt::scope(head_, body_.take()));
  file_.push_back(code::Stmt::blank());
  for (code::Stmt& s : after) file_.push_back(std::move(s));
  for (const char* l : {"}  // namespace tlaloc_generated", "", "#pragma GCC diagnostic pop"})
    file_.push_back(*l == 0 ? code::Stmt::blank() : code::Stmt::line(l));
  return code::print(file_);
}

// Where a comment's code is: `line 12` of the differentiated function's file, or a
// header's line (`tlaloc/derived_ops.hpp:51`, `physics.hpp:8`) for a function inlined
// from it.
std::string Writer::at(const Loc& l) const {
  const std::string line = std::to_string(l.line);
  if (l.file.empty() || l.file == p_.loc.file) return "line " + line;
  const std::size_t library = l.file.rfind("/tlaloc/");
  const std::size_t slash = l.file.rfind('/');
  const std::string file = library != std::string::npos ? l.file.substr(library + 1)
                           : slash != std::string::npos ? l.file.substr(slash + 1)
                                                        : l.file;
  return file + ":" + line;
}

std::string Writer::tangent_or_zero(ValueId v) const {
  if (active(v) && zero_tangent_.count(v) != 0)
    return "(t_" + name(v) + ".defined() ? t_" + name(v) + " : tl::zeros_like(" + name(v) + "))";
  if (active(v)) return "t_" + name(v);
  // An undefined tensor (one declared without a value) has no tangent either.
  if (undefined(v)) return "tl::Tensor()";
  const std::string zero = "tl::zeros_like(" + name(v) + ")";
  if (p_.values[std::size_t(v)].maybe_undefined)
    return "(" + name(v) + ".defined() ? " + zero + " : tl::Tensor())";
  return zero;
}

std::string Writer::escape(const std::string& s) {
  std::string r;
  for (char c : s) r += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return r;
}

void Writer::set(const std::string& decl, const std::string& name, const std::string& value,
                 const std::string& comment) {
  body_.add(decl.empty() ? code::Stmt::assign(name, code::Expr::text(value), comment)
                         : code::Stmt::declare(decl, name, code::Expr::text(value), comment));
}

code::Block Writer::statements_of(const std::function<void()>& write) {
  code::Builder kept;
  std::swap(kept, body_);
  write();
  std::swap(kept, body_);
  return kept.take();
}

std::string emit_gradient(const Program& p, bool with_value) { return Writer(p).function(with_value); }
std::string emit_jvp(const Program& p) { return Writer(p).jvp_function(true); }
std::string emit_vjp(const Program& p) { return Writer(p).vjp_function(); }

std::string emit_hessian(const Program& p, const Program& gradient) {
  const std::string x = p.params[p.wrt.at(0)].name;
  std::string params, args;
  std::set<std::string> taken;
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    params += (i ? ", " : "") + p.params[i].type + " " + p.params[i].name;
    args += p.params[i].name + ", ";
    taken.insert(p.params[i].name);
  }
  // The loop's own names, none a parameter's (a captured `columns` or `shape`).
  const auto fresh = [&taken](std::string name) {
    while (!taken.insert(name).second) name += "_";
    return name;
  };
  const std::string n = fresh("n"), shape = fresh("shape"), columns = fresh("columns"), i = fresh("i"),
                    basis = fresh("basis");
  using code::Stmt;
  const code::Block column{
      Stmt::line("const tl::Tensor " + basis + " = tl::reshape(tl::one_hot(tl::scalar_tensor(" + i +
                 ", tl::DType::i64), " + n + ", " + x + ".dtype()), " + x + ".shape());"),
      Stmt::line(columns + ".push_back(" + gradient.name + "(" + args + basis + ").second);")};
  const code::Block body{
      Stmt::line("const std::int64_t " + n + " = " + x + ".numel();"),
      Stmt::line("tl::Shape " + shape + " = " + x + ".shape();"),
      Stmt::line(shape + ".insert(" + shape + ".end(), " + x + ".shape().begin(), " + x + ".shape().end());"),
      Stmt::line("std::vector<tl::Tensor> " + columns + ";"),
      Stmt::scope("for (std::int64_t " + i + " = 0; " + i + " < " + n + "; ++" + i + ")", column),
      Stmt::line("if (" + n + " == 0) return tl::zeros(" + shape + ", " + x + ".dtype());"),
      Stmt::line("return tl::reshape(tl::stack(" + columns + ", -1), " + shape + ");")};
  code::Block hessian{
      Stmt::comment("The Hessian of " + p.what + " with respect to `" + x + "` (tl::hessian), of shape"),
      Stmt::comment(x + ".shape() + " + x + ".shape(): the derivative of the gradient along each basis"),
      Stmt::comment("vector, stacked on a last axis, as the engine's jacfwd(jacrev(f))."),
      Stmt::scope("inline tl::Tensor " + p.name + "(" + params + ")", body), Stmt::blank()};
  return Writer(gradient).jvp_function(false, std::move(hessian));
}

}  // namespace tlaloc_grad

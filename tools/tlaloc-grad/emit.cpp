#include "emit.hpp"

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

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
  line("if (" + y + ".rank() != 0)");
  line("  throw tl::ValueError(\"tlaloc-grad: " + escape(p_.what) +
       " must return a scalar, got \" + tl::shape_string(" + y + ".shape()));");
  line("");
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
  line("");
  line("auto pullback = [=](const tl::Tensor& ct) -> std::vector<tl::Tensor> {");
  ++depth_;
  line("if (ct.shape() != " + y + ".shape())");
  line("  throw tl::ShapeError(\"tlaloc-grad: the cotangent of " + escape(p_.what) +
       " has shape \" + tl::shape_string(ct.shape()) + \", the result \" + tl::shape_string(" + y +
       ".shape()));");
  line("return {" + reverse_sweep("ct") + "};");
  --depth_;
  line("};");
  line("return {" + y + ", tl::Pullback(pullback)};");
  return footer();
}

// The reverse sweep from `seed`, the result's cotangent; returns the cotangents of
// the differentiated parameters, comma-separated.
std::string Writer::reverse_sweep(const std::string& seed) {
  ForwardPass forward;
  forward.at = [&](const Loc& l) { return at(l); };
  forward.restore = [&](const Node& s, const std::string& k) {
    return lines_of([&] { restore_iteration(s, k); });
  };
  forward.scalars = [&](const Block& b) { return lines_of([&] { scalars_of(b); }); };
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
  for (const std::string& l : sweep.lines) line(l);
  std::string cts;
  for (std::size_t k = 0; k < p_.wrt.size(); ++k) {
    const std::size_t w = p_.wrt[k];
    const Param& prm = p_.params[w];
    if (prm.list) {
      // Elements nothing read get zeros, as the engine gives an unused argument.
      line("for (std::size_t k = 0; k < " + prm.name + ".size(); ++k)");
      line("  if (!d_" + prm.name + "[k].defined()) d_" + prm.name + "[k] = tl::zeros_like(" +
           prm.element("k") + ");");
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
std::string Writer::jvp_function(bool checked) {
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
  return footer();
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
  out_ += "// " + what + "\n";
  out_ += "// written by tlaloc-grad at build time: the function's own ops, then their\n// " + how + "\n";
  out_ += "#include <tlaloc/tlaloc.hpp>\n#include <tlaloc/derivatives.hpp>\n";
  for (const std::string& h : p_.headers) out_ += "#include <" + h + ">\n";
  out_ += "\n#include <cstddef>\n#include <utility>\n#include <vector>\n\n";
  // A loop's reverse sweep restores each iteration's counters under their own names.
  out_ += "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wshadow\"\n\n";
  out_ += "namespace tlaloc_generated {\nnamespace tl = ::tlaloc;\n\n";
}

// The parameters, then (forward mode) the tangent, then the captures.
void Writer::signature(const std::string& result, bool tangent) {
  out_ += "inline " + result + " " + p_.name + "(";
  std::string t;
  if (tangent) {
    const bool list = p_.params[p_.wrt.at(0)].list;
    t = ", " + std::string(list ? "const std::vector<tl::Tensor>&" : "const tl::Tensor&") + " t_" +
        wrt_name();
  }
  for (std::size_t i = 0; i < p_.params.size(); ++i) {
    if (i == p_.explicit_params) out_ += t;
    out_ += (i ? ", " : "") + p_.params[i].type + " " + p_.params[i].name;
  }
  if (p_.params.size() == p_.explicit_params) out_ += t;
  out_ += ") {\n";
  depth_ = 1;
}

std::string Writer::footer() {
  out_ += "}\n\n}  // namespace tlaloc_generated\n\n#pragma GCC diagnostic pop\n";
  mark_unread_declarations();
  return out_;
}

// A branch's condition that neither pass tests (`bool cond_3 = false;` then only
// `cond_3 = ...;`), a cotangent's reference that gets no share and a list element's
// position whose element gets none (read only by a comparison) are declared
// [[maybe_unused]]: compilers warn of them, and builds may treat warnings as errors.
void Writer::mark_unread_declarations() {
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::map<std::string, int> uses;
  for (std::size_t i = 0; i < out_.size();) {
    if (!ident(out_[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < out_.size() && ident(out_[j])) ++j;
    ++uses[out_.substr(i, j - i)];
    i = j;
  }
  std::string marked;
  std::istringstream lines(out_);
  for (std::string l; std::getline(lines, l);) {
    const std::size_t at = l.find_first_not_of(' ');
    const std::string_view code =
        at == std::string::npos ? std::string_view() : std::string_view(l).substr(at);
    std::string declared;
    int writes = 0;  // its mentions that are not reads
    if (code.starts_with("bool cond_") && code.ends_with(" = false;")) {
      declared = std::string(code.substr(5, code.find(' ', 5) - 5));
      writes = 2;  // its declaration and its assignment
    } else if (code.starts_with("tl::Tensor& d_")) {
      declared = std::string(code.substr(12, code.find(' ', 12) - 12));
      writes = 1;
    } else if (code.starts_with("const std::size_t at_")) {
      declared = std::string(code.substr(18, code.find(' ', 18) - 18));
      writes = 1;
    }
    if (!declared.empty() && uses[declared] <= writes) l.insert(at, "[[maybe_unused]] ");
    marked += l + "\n";
  }
  out_ = std::move(marked);
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

std::vector<std::string> Writer::lines_of(const std::function<void()>& write) {
  std::string kept;
  std::swap(kept, out_);
  const int depth = depth_;
  depth_ = 0;
  write();
  std::swap(kept, out_);
  depth_ = depth;
  std::vector<std::string> lines;
  std::istringstream in(kept);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

void Writer::line(const std::string& s) {
  if (s.empty()) {
    out_ += "\n";
    return;
  }
  out_ += std::string(std::size_t(depth_) * 2, ' ') + s + "\n";
}

std::string emit_gradient(const Program& p, bool with_value) { return Writer(p).function(with_value); }
std::string emit_jvp(const Program& p) { return Writer(p).jvp_function(true); }
std::string emit_vjp(const Program& p) { return Writer(p).vjp_function(); }

std::string emit_hessian(const Program& p, const Program& gradient) {
  std::string text = Writer(gradient).jvp_function(false);
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
  std::string h;
  for (const std::string& l : std::vector<std::string>{
           "// The Hessian of " + p.what + " with respect to `" + x + "` (tl::hessian), of shape",
           "// " + x + ".shape() + " + x + ".shape(): the derivative of the gradient along each basis",
           "// vector, stacked on a last axis, as the engine's jacfwd(jacrev(f)).",
           "inline tl::Tensor " + p.name + "(" + params + ") {",
           "  const std::int64_t " + n + " = " + x + ".numel();",
           "  tl::Shape " + shape + " = " + x + ".shape();",
           "  " + shape + ".insert(" + shape + ".end(), " + x + ".shape().begin(), " + x + ".shape().end());",
           "  std::vector<tl::Tensor> " + columns + ";",
           "  for (std::int64_t " + i + " = 0; " + i + " < " + n + "; ++" + i + ") {",
           "    const tl::Tensor " + basis + " = tl::reshape(tl::one_hot(tl::scalar_tensor(" + i +
               ", tl::DType::i64), " + n + ", " + x + ".dtype()), " + x + ".shape());",
           "    " + columns + ".push_back(" + gradient.name + "(" + args + basis + ").second);", "  }",
           "  if (" + n + " == 0) return tl::zeros(" + shape + ", " + x + ".dtype());",
           "  return tl::reshape(tl::stack(" + columns + ", -1), " + shape + ");", "}", ""})
    h += l + "\n";
  text.insert(text.rfind("}  // namespace tlaloc_generated"), h);
  return text;
}

}  // namespace tlaloc_grad

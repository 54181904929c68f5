#include <fmt/format.h>

#include "ops/custom_call.hpp"
#include "stablehlo/stablehlo.hpp"
#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using ir::Op;
using ir::Region;
using ir::ValueId;

class FunctionEmitter final : public OpPrinter {
 public:
  FunctionEmitter(const ir::Function& f, bool generic) : f_(f), generic_(generic), names_(f.num_values()) {}

  std::string run(int indent) {
    indent_ = indent;
    std::string out;
    const std::string pad(std::size_t(indent), ' ');
    std::string params, results;
    for (std::size_t i = 0; i < f_.body.args.size(); ++i) {
      const ValueId v = f_.body.args[i];
      names_[std::size_t(v)] = fmt::format("%arg{}", next_arg_++);
      params += fmt::format("{}{}: {}", i ? ", " : "", names_[std::size_t(v)], type(v));
    }
    const std::vector<TensorType> rt = f_.result_types();
    for (std::size_t i = 0; i < rt.size(); ++i) results += (i ? ", " : "") + type_text(rt[i]);
    if (generic_) {
      out += pad + "\"func.func\"() ({\n";
      if (!params.empty()) out += pad + "^bb0(" + params + "):\n";
      body(f_.body, out, indent + 2, true);
      out += pad + fmt::format("}}) {{function_type = ({}) -> ({}), sym_name = \"{}\"{}}} : () -> ()\n",
                               types(f_.body.args), results, f_.name,
                               f_.is_public ? "" : ", sym_visibility = \"private\"");
    } else {
      out += pad + fmt::format("func.func {} @{}({})", f_.is_public ? "public" : "private", f_.name, params);
      if (rt.size() == 1)
        out += " -> " + results;
      else if (!rt.empty())
        out += " -> (" + results + ")";
      out += " {\n";
      body(f_.body, out, indent + 2, true);
      out += pad + "}\n";
    }
    return out;
  }

  std::string use(ValueId v) override {
    const std::string& n = names_.at(std::size_t(v));
    if (n.empty()) throw Error(fmt::format("StableHLO emitter: value %{} is used before it is named", v));
    return n;
  }
  const ir::Function& function() const override { return f_; }
  bool generic() const override { return generic_; }
  int indent() const override { return indent_; }

  void region(const Region& r, std::string& out, bool block_label) override {
    const int saved = indent_;
    out += "{\n";
    if (block_label && !r.args.empty())
      out += std::string(std::size_t(saved + 2), ' ') + "^bb0(" + name_region_args(r) + "):\n";
    body(r, out, saved + 4, false);
    out += std::string(std::size_t(saved + 2), ' ') + "}";
    indent_ = saved;
  }

  // The `(%a: t, %b: t)` list a pretty format prints instead of a block label.
  std::string name_region_args(const Region& r) override {
    std::string args;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
      names_[std::size_t(r.args[i])] = fmt::format("%arg{}", next_arg_++);
      args += fmt::format("{}{}: {}", i ? ", " : "", names_[std::size_t(r.args[i])], type(r.args[i]));
    }
    return args;
  }

  void share_arg_names(const Region& from, const Region& to) override {
    for (std::size_t i = 0; i < from.args.size() && i < to.args.size(); ++i)
      names_[std::size_t(to.args[i])] = names_[std::size_t(from.args[i])];
  }

 private:
  void body(const Region& r, std::string& out, int indent, bool function_body) {
    const int saved = indent_;
    indent_ = indent;
    for (const Op& op : r.ops) this->op(op, out);
    const std::string pad(std::size_t(indent), ' ');
    const char* name = function_body ? "func.return" : "stablehlo.return";
    if (generic_) {
      out += pad + fmt::format("\"{}\"({}) : ({}) -> ()\n", name, uses(r.results), types(r.results));
    } else {
      out += fmt::format("{}{}", pad, function_body ? "return" : "stablehlo.return");
      if (!r.results.empty()) out += fmt::format(" {} : {}", uses(r.results), types(r.results));
      out += '\n';
    }
    indent_ = saved;
  }

  void name_results(const Op& op, std::string& out) {
    if (op.results.empty()) return;
    const std::string base = fmt::format("%{}", next_++);
    if (op.results.size() == 1) {
      names_[std::size_t(op.results[0])] = base;
      out += base + " = ";
      return;
    }
    for (std::size_t i = 0; i < op.results.size(); ++i)
      names_[std::size_t(op.results[i])] = fmt::format("{}#{}", base, i);
    out += fmt::format("{}:{} = ", base, op.results.size());
  }

  void op(const Op& op, std::string& out) {
    const StableHloSpelling* s = op.def->written();
    if (s == nullptr)
      throw Error(fmt::format("StableHLO emitter: op '{}' has no StableHLO form (lower the module first)",
                              op.name()));
    out += std::string(std::size_t(indent_), ' ');
    std::string line;
    if (!generic_ && !s->format.empty()) {
      const FormatFns* fmt_fns = find_format(s->format);
      if (fmt_fns == nullptr) throw Error(fmt::format("StableHLO emitter: unknown format '{}'", s->format));
      // Results are named after the operands and regions are printed (their names come first).
      std::string rest;
      fmt_fns->print(*this, op, *s, rest);
      std::string lhs;
      name_results(op, lhs);
      out += lhs + rest + "\n";
      return;
    }
    std::string rest = fmt::format("\"{}\"({})", s->name, uses(op.operands));
    std::string attrs;
    for (const StableHloAttr& a : s->attrs) {
      if (implied(a) || !attr_present(a, op.attrs)) continue;
      attrs += (attrs.empty() ? "" : ", ") + attr_entry(a, op.attrs);
    }
    if (const std::string dict = prefixed_dict_text(op.attrs, detail::kBackendConfigPrefix); !dict.empty())
      attrs += (attrs.empty() ? "" : ", ") + std::string("backend_config = ") + dict;
    if (!generic_ && !attrs.empty()) rest += " <{" + attrs + "}>";
    if (!op.regions.empty()) {
      rest += " (";
      for (std::size_t i = 0; i < op.regions.size(); ++i) {
        if (i) rest += ", ";
        region(op.regions[i], rest, true);
      }
      rest += ")";
    }
    if (generic_ && !attrs.empty()) rest += " {" + attrs + "}";
    rest += " : " + functional_type(op);
    std::string lhs;
    name_results(op, lhs);
    out += lhs + rest + "\n";
  }

  const ir::Function& f_;
  bool generic_;
  std::vector<std::string> names_;
  int next_ = 0;
  int next_arg_ = 0;
  int indent_ = 0;
};

}  // namespace

std::string OpPrinter::uses(const std::vector<ValueId>& vs) {
  std::string s;
  for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + use(vs[i]);
  return s;
}

std::string OpPrinter::types(const std::vector<ValueId>& vs) {
  std::string s;
  for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + type(vs[i]);
  return s;
}

std::string OpPrinter::functional_type(const Op& op) {
  const std::string res = types(op.results);
  return op.results.size() == 1 ? fmt::format("({}) -> {}", types(op.operands), res)
                                : fmt::format("({}) -> ({})", types(op.operands), res);
}

std::string OpPrinter::trailing_type(const Op& op) {
  bool same = !op.results.empty();
  for (ValueId v : op.operands) same = same && function().type(v) == function().type(op.results[0]);
  for (ValueId v : op.results) same = same && function().type(v) == function().type(op.results[0]);
  return same ? type(op.results[0]) : functional_type(op);
}

std::string emit(const ir::Module& m, const EmitOptions& options) {
  // The process grid of an SPMD program, as XLA reads it.
  const std::string grid = m.num_replicas > 1 || m.num_partitions > 1
                               ? fmt::format("mhlo.num_partitions = {} : i32, mhlo.num_replicas = {} : i32",
                                             m.num_partitions, m.num_replicas)
                               : "";
  std::string out;
  if (options.generic) {
    out += "\"builtin.module\"() ({\n";
    for (const ir::Function& f : m.functions) out += FunctionEmitter(f, true).run(2);
    std::string attrs =
        options.module_name.empty() ? "" : fmt::format("sym_name = \"{}\"", options.module_name);
    if (!grid.empty()) attrs += (attrs.empty() ? "" : ", ") + grid;
    return out + (attrs.empty() ? "}) : () -> ()\n" : fmt::format("}}) {{{}}} : () -> ()\n", attrs));
  }
  out += "module";
  if (!options.module_name.empty()) out += " @" + options.module_name;
  if (!grid.empty()) out += fmt::format(" attributes {{{}}}", grid);
  out += " {\n";
  for (const ir::Function& f : m.functions) out += FunctionEmitter(f, false).run(2);
  return out + "}\n";
}

std::string to_text(const ir::Module& m, const EmitOptions& options) { return emit(lower(m), options); }

std::string to_text(const ir::Function& f, const EmitOptions& options) {
  ir::Module m;
  m.functions.push_back(f);
  return to_text(m, options);
}

}  // namespace tlaloc::stablehlo

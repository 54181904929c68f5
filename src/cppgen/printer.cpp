// The C++ source printer (cppgen.hpp). Each op is written by its spelling
// (OpDef::cpp); this file names values, lays out statements and renders regions
// as blocks or lambdas.
#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "cppgen/code.hpp"
#include "cppgen/cppgen.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc::cppgen {
namespace {

using detail::CppOp;
using detail::TensorType;
using ir::Op;
using ir::Region;
using ir::ValueId;

std::string types_string(const ir::Function& f, const std::vector<ValueId>& vs) {
  std::vector<std::string> t;
  for (ValueId v : vs) t.push_back(ir::type_string(f.type(v)));
  return fmt::format("{}", fmt::join(t, ", "));
}

// Every value some op, region or the function reads.
void collect_uses(const Region& r, std::unordered_set<ValueId>& used) {
  for (const Op& op : r.ops) {
    used.insert(op.operands.begin(), op.operands.end());
    for (const Region& inner : op.regions) collect_uses(inner, used);
  }
  used.insert(r.results.begin(), r.results.end());
}

class Printer;

// The op being printed, as its spelling sees it.
class OpView final : public CppOp {
 public:
  OpView(Printer& p, const Op& op) : p_(p), op_(op) {}
  std::size_t num_operands() const override { return op_.operands.size(); }
  const std::string& operand(std::size_t i) const override;
  const TensorType& operand_type(std::size_t i) const override;
  std::size_t num_results() const override { return op_.results.size(); }
  const TensorType& result_type(std::size_t i) const override;
  const detail::Attrs& attrs() const override { return op_.attrs; }
  std::size_t num_regions() const override { return op_.regions.size(); }
  std::string lambda(std::size_t k) override;
  const std::string& result(std::size_t i) const override;
  void line(const std::string& text) override;
  void open(const std::string& head) override;
  void close(const std::string& tail) override;
  void reopen(const std::string& text) override;
  std::vector<std::string> region(std::size_t k, const std::vector<std::string>& args) override;
  std::string fresh(std::string_view stem) override;

 private:
  Printer& p_;
  const Op& op_;
};

class Printer {
 public:
  explicit Printer(const ir::Function& f) : f_(f) { collect_uses(f.body, used_); }

  const ir::Function& f() const { return f_; }
  const std::string& name(ValueId v) const {
    auto it = names_.find(v);
    if (it == names_.end()) throw Error(fmt::format("cppgen: value %{} is used before it is defined", v));
    return it->second;
  }
  void bind(ValueId v, std::string name) { names_[v] = std::move(name); }
  bool used(ValueId v) const { return used_.count(v) != 0; }

  std::string fresh(std::string_view stem) {
    for (;;) {
      std::string n = fmt::format("{}{}", stem, counter_++);
      if (taken_.insert(n).second) return n;
    }
  }
  void reserve(const std::string& n) { taken_.insert(n); }

  // The statements are built in the code model (code.hpp) and printed once.
  void line(const std::string& text) { code_.line(text); }
  void open(const std::string& head) { code_.open(head); }
  void close(const std::string& tail) { code_.close(tail); }
  void reopen(const std::string& text) { code_.reopen(text); }

  void ops(const Region& r) {
    for (const Op& op : r.ops) print_op(op);
  }

  std::vector<std::string> region(const Region& r, const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < r.args.size(); ++i) bind(r.args[i], args.at(i));
    ops(r);
    std::vector<std::string> res;
    for (ValueId v : r.results) res.push_back(name(v));
    return res;
  }

  // A region as `[&](std::span<const tl::Tensor> a) -> ... { ... }`, rendered
  // relative to the line it is written on.
  std::string lambda(const Region& r) {
    Builder saved;
    std::swap(saved, code_);
    const std::string a = fresh("a");
    bool any_arg = false;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
      if (!used(r.args[i])) continue;
      any_arg = true;
      const std::string n = fresh("v");
      bind(r.args[i], n);
      line(fmt::format("const tl::Tensor& {} = {}[{}];", n, a, i));
    }
    ops(r);
    std::vector<std::string> res;
    for (ValueId v : r.results) res.push_back(name(v));
    line(fmt::format("return {{{}}};", detail::cpp_list(res)));
    std::swap(saved, code_);
    std::string body = cppgen::print(saved.take(), 1);
    body.pop_back();
    return fmt::format("[&](std::span<const tl::Tensor>{}) -> std::vector<tl::Tensor> {{\n{}\n}}",
                       any_arg ? " " + a : "", body);
  }

  void print_op(const Op& op) {
    const detail::CppSpelling& spell = op.def->cpp_spelling();
    if (!spell) throw Error(fmt::format("cppgen: op '{}' has no C++ spelling", op.name()));
    for (ValueId v : op.results) bind(v, fresh(op.name() == "constant" ? "c" : "v"));
    const std::string comment = fmt::format("// {}{}{}", op.name(), op.results.empty() ? "" : ": ",
                                            types_string(f_, op.results));
    // A statement op writes its lines after the comment; render them aside first.
    Builder saved;
    std::swap(saved, code_);
    OpView view(*this, op);
    const std::string expr = spell(view);
    std::swap(saved, code_);
    if (expr.empty()) {
      line(comment);
      code_.add_all(saved.take());
      return;
    }
    if (op.results.empty()) {
      line(fmt::format("{};  {}", expr, comment));
    } else if (op.results.size() == 1) {
      line(fmt::format("const tl::Tensor {} = {};  {}", name(op.results[0]), expr, comment));
    } else {
      const std::string all = fresh("r");
      line(fmt::format("const std::vector<tl::Tensor> {} = {};  {}", all, expr, comment));
      std::vector<std::string> parts;
      for (std::size_t i = 0; i < op.results.size(); ++i)
        parts.push_back(fmt::format("{} = {}[{}]", name(op.results[i]), all, i));
      line(fmt::format("const tl::Tensor {};", detail::cpp_list(parts)));
    }
  }

  std::string function(const PrintOptions& o) {
    std::vector<std::string> params;
    for (std::size_t i = 0; i < f_.body.args.size(); ++i) {
      const std::string n = i < o.param_names.size() ? o.param_names[i] : fmt::format("x{}", i);
      reserve(n);
      bind(f_.body.args[i], n);
      params.push_back(used(f_.body.args[i]) ? "const tl::Tensor& " + n : "const tl::Tensor& /*" + n + "*/");
    }
    ops(f_.body);
    std::vector<std::string> res;
    for (ValueId v : f_.body.results) res.push_back(name(v));
    const bool one = res.size() == 1;
    line(one ? fmt::format("return {};", res[0]) : fmt::format("return {{{}}};", detail::cpp_list(res)));
    std::string head;
    for (const std::string& c : o.comment) head += c.empty() ? "//\n" : "// " + c + "\n";
    const std::string signature = fmt::format("{} {}({})", one ? "tl::Tensor" : "std::vector<tl::Tensor>",
                                              o.name, detail::cpp_list(params));
    return head + cppgen::print({Stmt::scope(signature, code_.take())});
  }

 private:
  const ir::Function& f_;
  std::unordered_map<ValueId, std::string> names_;
  std::unordered_set<ValueId> used_;
  std::set<std::string> taken_;
  Builder code_;
  int counter_ = 0;
};

const std::string& OpView::operand(std::size_t i) const { return p_.name(op_.operands.at(i)); }
const TensorType& OpView::operand_type(std::size_t i) const { return p_.f().type(op_.operands.at(i)); }
const TensorType& OpView::result_type(std::size_t i) const { return p_.f().type(op_.results.at(i)); }
const std::string& OpView::result(std::size_t i) const { return p_.name(op_.results.at(i)); }
std::string OpView::lambda(std::size_t k) { return p_.lambda(op_.regions.at(k)); }
void OpView::line(const std::string& text) { p_.line(text); }
void OpView::open(const std::string& head) { p_.open(head); }
void OpView::close(const std::string& tail) { p_.close(tail); }
void OpView::reopen(const std::string& text) { p_.reopen(text); }
std::vector<std::string> OpView::region(std::size_t k, const std::vector<std::string>& args) {
  return p_.region(op_.regions.at(k), args);
}
std::string OpView::fresh(std::string_view stem) { return p_.fresh(stem); }

// Whether some call or composite in r (its regions included) names `callee`.
bool calls(const Region& r, const std::string& callee) {
  for (const Op& op : r.ops) {
    if (op.def->calls() == detail::OpDef::Calls::one &&
        op.attrs.get<std::string>(op.def->calls_attr()) == callee)
      return true;
    for (const Region& inner : op.regions)
      if (calls(inner, callee)) return true;
  }
  return false;
}

}  // namespace

std::string prelude() {
  return "#include <tlaloc/derivatives.hpp>\n#include <tlaloc/tlaloc.hpp>\n\n"
         "#include <bit>\n#include <cstdint>\n#include <limits>\n#include <span>\n#include <vector>\n\n"
         "namespace tl = tlaloc;\n";
}

std::string print(const ir::Function& f, const PrintOptions& options) {
  Printer p(f);
  std::string body = p.function(options);
  return options.standalone ? prelude() + "\n" + body : body;
}

std::string print(const ir::Module& m, std::string_view entry, const PrintOptions& options) {
  const ir::Function& main = m.entry(entry);
  bool main_called = false;
  for (const ir::Function& f : m.functions) main_called = main_called || calls(f.body, main.name);
  std::string declarations, definitions;
  for (const ir::Function& f : m.functions) {
    if (&f == &main && !main_called) continue;  // printed under options.name below
    const std::string text = print(f, {.name = detail::cpp_function_name(f.name)});
    declarations += text.substr(0, text.find(" {\n")) + ";\n";
    definitions += text + "\n";
  }
  PrintOptions o = options;
  o.standalone = false;
  std::string body = print(main, o);
  if (!definitions.empty()) body = declarations + "\n" + definitions + body;
  return options.standalone ? prelude() + "\n" + body : body;
}

}  // namespace tlaloc::cppgen

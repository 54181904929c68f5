// The IR's readable text form (for people and golden tests; not parsed back: the
// exchange format is StableHLO text).
#include <fmt/format.h>

#include <sstream>

#include "core/check.hpp"
#include "ir/ir.hpp"

namespace tlaloc::ir {
namespace {

std::string value_list(const std::vector<ValueId>& vs) {
  std::string s;
  for (std::size_t i = 0; i < vs.size(); ++i) s += fmt::format("{}%{}", i ? ", " : "", vs[i]);
  return s;
}

std::string attr_string(const detail::AttrValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<X, std::string>)
          return fmt::format("\"{}\"", x);
        else if constexpr (std::is_same_v<X, DType>)
          return std::string(dtype_name(x));
        else if constexpr (std::is_same_v<X, Tensor>)
          return x.to_string();
        else if constexpr (std::is_same_v<X, std::vector<std::string>>)
          return fmt::format("[{}]", fmt::join(x, ", "));
        else if constexpr (std::is_same_v<X, double>)
          return fmt::format("{}", x);
        else if constexpr (std::is_same_v<X, detail::Written>)
          return fmt::format("`{}`", x.text);
        else
          return fmt::format("{}", x);
      },
      v);
}

void print_region(std::ostringstream& os, const Function& f, const Region& r, int indent);

void print_op(std::ostringstream& os, const Function& f, const Op& op, int indent) {
  os << std::string(std::size_t(indent), ' ');
  if (!op.results.empty()) os << value_list(op.results) << " = ";
  os << op.name() << '(' << value_list(op.operands) << ')';
  if (!op.attrs.items().empty()) {
    os << " {";
    bool first = true;
    for (const auto& [k, v] : op.attrs.items()) {
      os << (first ? "" : ", ") << k << '=' << attr_string(v);
      first = false;
    }
    os << '}';
  }
  if (!op.results.empty()) {
    os << " : ";
    for (std::size_t i = 0; i < op.results.size(); ++i)
      os << (i ? ", " : "") << type_string(f.type(op.results[i]));
  }
  for (const Region& r : op.regions) {
    os << " {\n";
    print_region(os, f, r, indent + 2);
    os << std::string(std::size_t(indent), ' ') << '}';
  }
  os << '\n';
}

void print_region(std::ostringstream& os, const Function& f, const Region& r, int indent) {
  const std::string pad(std::size_t(indent), ' ');
  if (!r.args.empty()) {
    os << pad << '^';
    for (std::size_t i = 0; i < r.args.size(); ++i)
      os << (i ? ", " : "") << '%' << r.args[i] << ": " << type_string(f.type(r.args[i]));
    os << ":\n";
  }
  for (const Op& op : r.ops) print_op(os, f, op, indent);
  os << pad << "return(" << value_list(r.results) << ")\n";
}

}  // namespace

std::string to_string(const Function& f) {
  std::ostringstream os;
  os << "func " << (f.is_public ? "" : "private ") << '@' << f.name << '(';
  for (std::size_t i = 0; i < f.body.args.size(); ++i)
    os << (i ? ", " : "") << '%' << f.body.args[i] << ": " << type_string(f.type(f.body.args[i]));
  os << ") {\n";
  for (const Op& op : f.body.ops) print_op(os, f, op, 2);
  os << "  return(" << value_list(f.body.results) << ")\n}\n";
  return os.str();
}

std::string to_string(const Module& m) {
  std::string s;
  for (const Function& f : m.functions) s += to_string(f);
  return s;
}

}  // namespace tlaloc::ir

// The StableHLO text parser: modules and functions in pretty or generic syntax,
// ops in their pretty form (by format) or MLIR's generic form.
#include <fmt/format.h>

#include <map>

#include "ops/custom_call.hpp"
#include "ops/spmd.hpp"
#include "stablehlo/stablehlo.hpp"
#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using ir::Op;
using ir::Region;
using ir::ValueId;

// StableHLO ops this version does not run, with the reason given to the user.
std::string unsupported_reason(std::string_view name) {
  if (name == "stablehlo.create_token") return "it is deprecated: write stablehlo.after_all";
  static constexpr std::string_view quantized[] = {"stablehlo.uniform_quantize",
                                                   "stablehlo.uniform_dequantize"};
  for (std::string_view q : quantized)
    if (name == q) return "quantized types are not supported";
  if (name == "stablehlo.tuple" || name == "stablehlo.get_tuple_element")
    return "tuple types are not supported";
  return {};
}

class Parser final : public OpParser {
 public:
  Parser(std::string_view text, const std::string& file, int first_line) : c_(text, file, first_line) {}

  ir::Module run() {
    if (c_.eat_word("module")) {
      c_.skip_space();
      if (c_.peek_raw() == '@') c_.symbol_name();
      if (c_.eat_word("attributes")) grid(parse_attr_dict(c_));
      c_.expect("{");
      functions_until("}");
    } else if (c_.rest().rfind("\"builtin.module\"", 0) == 0) {
      c_.string_literal();
      c_.expect("(");
      c_.expect(")");
      c_.expect("(");
      c_.expect("{");
      functions_until("}");
      c_.expect(")");
      if (c_.peek() == '{') grid(parse_attr_dict(c_));
      c_.expect(":");
      parse_function_type(c_);
    } else {
      functions_until("");
    }
    if (!c_.at_end()) c_.fail("unexpected text after the module");
    return std::move(m_);
  }

  // The module's process grid; its other attributes are ignored.
  void grid(const std::vector<std::pair<std::string, AttrNode>>& attrs) {
    for (const auto& [k, v] : attrs) {
      std::int64_t* to = k == "mhlo.num_partitions" ? &m_.num_partitions
                         : k == "mhlo.num_replicas" ? &m_.num_replicas
                                                    : nullptr;
      if (to == nullptr) continue;
      *to = int_value(v, c_);
      if (*to < 1) c_.fail_at(v.pos, fmt::format("{} must be at least 1", k));
    }
  }

  // ---- OpParser -------------------------------------------------------------------
  Cursor& cursor() override { return c_; }

  ValueId operand() override {
    c_.skip_space();
    const std::size_t at = c_.pos();
    std::string name = c_.value_name();
    std::size_t index = 0;
    if (const std::size_t hash = name.find('#'); hash != std::string::npos) {
      Cursor sub(std::string_view(name).substr(hash + 1), "");
      try {
        index = std::size_t(sub.integer());
      } catch (const ParseError&) {
        c_.fail_at(at, fmt::format("'%{}' has no valid result number after '#'", name));
      }
      name.resize(hash);
    }
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found == it->end()) continue;
      if (index >= found->second.size())
        c_.fail_at(at,
                   fmt::format("%{} has {} results; #{} does not exist", name, found->second.size(), index));
      return found->second[index];
    }
    c_.fail_at(at, fmt::format("use of undefined value %{}", name));
  }

  const TensorType& type_of(ValueId v) override { return f_->type(v); }

  Region region(const std::vector<std::pair<std::string, TensorType>>& args) override {
    Region r;
    scopes_.emplace_back();
    for (const auto& [name, t] : args) r.args.push_back(define(name, t));
    c_.expect("{");
    body(r, false);
    scopes_.pop_back();
    return r;
  }

  Region region() override { return block(false); }

  std::string declare_pending_name() override { return c_.value_name(); }

  ValueId new_value(const TensorType& t) override { return f_->add_value(t); }

 private:
  // `{ ^bb0(%a: t): ops }` or `{ ops }`: a function's body or an op's region.
  Region block(bool function_body) {
    Cursor::Depth guard(c_);
    c_.expect("{");
    Region r;
    scopes_.emplace_back();
    if (c_.peek() == '^') {
      c_.seek(c_.pos() + 1);
      c_.identifier();
      if (c_.eat("(")) {
        if (!c_.eat(")")) {
          do {
            const std::string name = c_.value_name();
            c_.expect(":");
            r.args.push_back(define(name, parse_type(c_)));
          } while (c_.eat(","));
          c_.expect(")");
        }
      }
      c_.expect(":");
    }
    body(r, function_body);
    scopes_.pop_back();
    return r;
  }

  ValueId define(const std::string& name, const TensorType& t) {
    if (scopes_.back().count(name)) c_.fail(fmt::format("%{} is defined twice", name));
    const ValueId v = f_->add_value(t);
    scopes_.back()[name] = {v};
    return v;
  }

  void functions_until(std::string_view close) {
    while (true) {
      if (close.empty() ? c_.at_end() : c_.eat(close)) return;
      if (c_.at_end()) c_.fail(fmt::format("expected '{}' to close the module", close));
      c_.skip_space();
      if (c_.rest().rfind("\"func.func\"", 0) == 0)
        generic_function();
      else if (c_.eat_word("func.func"))
        pretty_function();
      else
        c_.fail("expected func.func");
    }
  }

  void start_function(const std::string& name, bool is_public, std::size_t at = 0) {
    for (const ir::Function& g : m_.functions)
      if (g.name == name) c_.fail_at(at, fmt::format("function @{} is defined twice", name));
    m_.functions.emplace_back();
    f_ = &m_.functions.back();
    f_->name = name;
    f_->is_public = is_public;
    scopes_.assign(1, {});
  }

  void pretty_function() {
    bool is_public = true;
    if (c_.eat_word("private"))
      is_public = false;
    else if (!c_.eat_word("public"))
      c_.eat_word("nested");
    c_.skip_space();
    const std::size_t at = c_.pos();
    start_function(c_.symbol_name(), is_public, at);
    c_.expect("(");
    if (!c_.eat(")")) {
      do {
        const std::string name = c_.value_name();
        c_.expect(":");
        f_->body.args.push_back(define(name, parse_type(c_)));
        if (c_.peek() == '{') parse_attr_dict(c_);
      } while (c_.eat(","));
      c_.expect(")");
    }
    std::vector<TensorType> results;
    if (c_.eat("->")) {
      if (c_.eat("(")) {
        if (!c_.eat(")")) {
          do {
            results.push_back(parse_type(c_));
            if (c_.peek() == '{') parse_attr_dict(c_);
          } while (c_.eat(","));
          c_.expect(")");
        }
      } else {
        results.push_back(parse_type(c_));
      }
    }
    if (c_.eat_word("attributes")) parse_attr_dict(c_);
    c_.expect("{");
    body(f_->body, true);
    check_returns(results);
  }

  void generic_function() {
    const std::size_t at = c_.pos();
    c_.string_literal();
    c_.expect("(");
    c_.expect(")");
    // The region comes before the attributes that name the function: parse it into
    // a placeholder and fill in the name afterwards.
    start_function("", true);
    c_.expect("(");
    Region r = block(true);
    f_->body = std::move(r);
    c_.expect(")");
    const auto attrs = parse_attr_dict(c_);
    c_.expect(":");
    parse_function_type(c_);
    std::vector<TensorType> results;
    bool have_type = false;
    for (const auto& [k, v] : attrs) {
      if (k == "sym_name") f_->name = v.text;
      if (k == "sym_visibility") f_->is_public = v.text != "private";
      if (k == "function_type") {
        have_type = true;
        if (v.kind != AttrNode::Kind::function) c_.fail_at(v.pos, "function_type must be a function type");
        if (v.fn_inputs != f_->param_types())
          c_.fail_at(v.pos, "function_type does not match the block arguments");
        results = v.fn_results;
      }
    }
    if (f_->name.empty()) c_.fail_at(at, "func.func has no sym_name");
    if (!have_type) c_.fail_at(at, "func.func has no function_type");
    for (std::size_t i = 0; i + 1 < m_.functions.size(); ++i)
      if (m_.functions[i].name == f_->name)
        c_.fail_at(at, fmt::format("function @{} is defined twice", f_->name));
    check_returns(results);
  }

  void check_returns(const std::vector<TensorType>& declared) {
    if (f_->result_types() != declared)
      c_.fail_at(return_pos_,
                 fmt::format("@{} returns values whose types differ from its signature", f_->name));
  }

  // Ops up to and including the terminator, then '}'.
  void body(Region& r, bool function_body) {
    Cursor::Depth guard(c_);
    for (;;) {
      if (c_.at_end()) c_.fail("the text ended inside a region (missing '}')");
      if (c_.eat("}")) c_.fail("a region must end with a return op");
      if (statement(r, function_body)) break;
    }
    c_.expect("}");
  }

  // One op; true when it was the region's terminator.
  bool statement(Region& r, bool function_body) {
    c_.skip_space();
    const std::size_t at = c_.pos();
    std::vector<std::pair<std::string, std::size_t>> names;  // name, result count
    if (c_.peek_raw() == '%') {
      do {
        std::string name = c_.value_name();
        std::size_t count = 1;
        if (c_.peek_raw() == ':') {
          c_.seek(c_.pos() + 1);
          const std::int64_t n = c_.integer();
          if (n < 1 || n > 1 << 16) c_.fail("bad result count");
          count = std::size_t(n);
        }
        names.emplace_back(std::move(name), count);
      } while (c_.eat(","));
      c_.expect("=");
    }
    std::size_t total = 0;
    for (const auto& n : names) total += n.second;
    c_.skip_space();
    const std::size_t name_at = c_.pos();
    const bool generic = c_.peek_raw() == '"';
    const std::string op_name = generic ? c_.string_literal() : c_.identifier();
    if (op_name == "func.return" || op_name == "return" || op_name == "stablehlo.return") {
      if (!names.empty()) c_.fail_at(at, "a return op has no results");
      if ((op_name == "stablehlo.return") == function_body)
        c_.fail_at(name_at, fmt::format("{} cannot end a {}", op_name,
                                        function_body ? "function" : "region of an op"));
      return_pos_ = at;
      r.results = generic ? generic_return() : pretty_return();
      c_.skip_space();
      if (c_.peek_raw() != '}') c_.fail("the return op must be the last op of its region");
      return true;
    }
    ParsedOp p;
    p.pos = at;
    p.num_results = total;
    const Spelled spelled = find_spelling(op_name);
    p.def = spelled.def;
    if (p.def == nullptr) {
      const std::string why = unsupported_reason(op_name);
      c_.fail_at(name_at,
                 why.empty() ? fmt::format("unknown op '{}'", op_name) : fmt::format("{}: {}", op_name, why));
    }
    p.spelling = spelled.spelling;
    if (generic)
      generic_op(p);
    else
      pretty_op(p, name_at);
    try {
      set_implied_attrs(*p.spelling, p.result_types, p.attrs);
    } catch (const Error& e) {
      c_.fail_at(at, e.what());
    }
    finish_op(r, p, names);
    return false;
  }

  std::vector<ValueId> pretty_return() {
    std::vector<ValueId> vs = operand_list();
    if (!vs.empty()) {
      c_.expect(":");
      for (std::size_t i = 0; i < vs.size(); ++i) {
        if (i) c_.expect(",");
        if (parse_type(c_) != f_->type(vs[i])) c_.fail(fmt::format("return operand {} has another type", i));
      }
    }
    return vs;
  }

  std::vector<ValueId> generic_return() {
    c_.expect("(");
    std::vector<ValueId> vs = operand_list();
    c_.expect(")");
    c_.expect(":");
    const auto [in, out] = parse_function_type(c_);
    if (in.size() != vs.size()) c_.fail("the return op's type does not match its operands");
    return vs;
  }

  void pretty_op(ParsedOp& p, std::size_t name_at) {
    if (p.spelling->format.empty())
      c_.fail_at(name_at, fmt::format("{} has no pretty form here; write it in generic form \"{}\"(...)",
                                      p.spelling->name, p.spelling->name));
    const FormatFns* f = find_format(p.spelling->format);
    if (f == nullptr) c_.fail_at(name_at, fmt::format("no parser for the format of {}", p.spelling->name));
    f->parse(*this, p);
  }

  void generic_op(ParsedOp& p) {
    c_.expect("(");
    p.operands = operand_list();
    c_.expect(")");
    std::vector<std::pair<std::string, AttrNode>> attrs;
    if (c_.eat("<")) {
      attrs = parse_attr_dict(c_);
      c_.expect(">");
    }
    if (c_.eat("(")) {
      do p.regions.push_back(region());
      while (c_.eat(","));
      c_.expect(")");
    }
    if (c_.peek() == '{') {
      auto more = parse_attr_dict(c_);
      attrs.insert(attrs.end(), more.begin(), more.end());
    }
    c_.expect(":");
    const std::size_t type_at = c_.pos();
    auto [in, out] = parse_function_type(c_);
    check_operand_types(p, in, type_at);
    p.result_types = std::move(out);
    decode_attrs(p, attrs);
  }

  void decode_attrs(ParsedOp& p, const std::vector<std::pair<std::string, AttrNode>>& attrs) {
    for (const auto& [k, v] : attrs) {
      if (k == "backend_config" && v.kind == AttrNode::Kind::dict) {  // a kernel's attributes
        decode_prefixed_dict(v, detail::kBackendConfigPrefix, p.attrs, c_);
        continue;
      }
      bool known = k.find('.') != std::string::npos;  // dialect attributes (mhlo.sharding, ...) are ignored
      for (const StableHloAttr& a : p.spelling->attrs) {
        if (a.name != k) continue;
        known = true;
        decode_attr(a, v, p.attrs, c_);
      }
      if (!known) c_.fail_at(v.pos, fmt::format("{} has no attribute '{}'", p.spelling->name, k));
    }
    for (const StableHloAttr& a : p.spelling->attrs)
      if (!a.is_optional && !implied(a) && !attr_present(a, p.attrs))
        c_.fail_at(p.pos, fmt::format("{} needs the attribute '{}'", p.spelling->name, a.name));
  }

  void check_operand_types(const ParsedOp& p, const std::vector<TensorType>& in, std::size_t at) {
    if (in.size() != p.operands.size())
      c_.fail_at(at, fmt::format("{} has {} operands but its type lists {}", p.spelling->name,
                                 p.operands.size(), in.size()));
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i] != f_->type(p.operands[i]))
        c_.fail_at(at, fmt::format("operand {} of {} is {} but the type says {}", i, p.spelling->name,
                                   type_text(f_->type(p.operands[i])), type_text(in[i])));
  }

  // The spec lets clamp's min and max and select's predicate be rank 0.
  static bool may_be_scalar(std::string_view op, std::size_t operand) {
    return (op == "stablehlo.clamp" && operand != 1) || (op == "stablehlo.select" && operand == 0);
  }

  void finish_op(Region& r, ParsedOp& p, const std::vector<std::pair<std::string, std::size_t>>& names) {
    if (p.result_types.size() != p.num_results)
      c_.fail_at(p.pos, fmt::format("{} gives {} results but {} are named", p.spelling->name,
                                    p.result_types.size(), p.num_results));
    if (p.def->is_elementwise()) {
      if (p.result_types.size() != 1)
        c_.fail_at(p.pos, fmt::format("{} gives one result but {} are named", p.spelling->name,
                                      p.result_types.size()));
      for (std::size_t i = 0; i < p.operands.size(); ++i)
        if (f_->type(p.operands[i]).shape != p.result_types.at(0).shape &&
            !(may_be_scalar(p.spelling->name, i) && f_->type(p.operands[i]).shape.empty()))
          c_.fail_at(p.pos, fmt::format("{} needs operands of the result's shape {}", p.spelling->name,
                                        type_text(p.result_types[0])));
    }
    Op op{p.def,
          std::move(p.operands),
          {},
          std::move(p.attrs),
          std::move(p.regions),
          {c_.line_of(p.pos), c_.col_of(p.pos)}};
    std::size_t next = 0;
    for (const auto& [name, count] : names) {
      if (scopes_.back().count(name)) c_.fail_at(p.pos, fmt::format("%{} is defined twice", name));
      std::vector<ValueId>& group = scopes_.back()[name];
      for (std::size_t i = 0; i < count; ++i) {
        group.push_back(f_->add_value(p.result_types[next++]));
        op.results.push_back(group.back());
      }
    }
    r.ops.push_back(std::move(op));
  }

  Cursor c_;
  ir::Module m_;
  ir::Function* f_ = nullptr;
  std::vector<std::map<std::string, std::vector<ValueId>>> scopes_;
  std::size_t return_pos_ = 0;
};

}  // namespace

std::vector<ValueId> OpParser::operand_list() {
  std::vector<ValueId> vs;
  Cursor& c = cursor();
  if (c.peek() != '%') return vs;
  vs.push_back(operand());
  // A comma may also start a keyword (`%a, dims = [0]`): stop before it.
  for (;;) {
    const std::size_t save = c.pos();
    if (!c.eat(",") || c.peek() != '%') {
      c.seek(save);
      return vs;
    }
    vs.push_back(operand());
  }
}

std::pair<std::vector<TensorType>, std::vector<TensorType>> OpParser::functional_type() {
  return parse_function_type(cursor());
}


void OpParser::trailing_type(ParsedOp& op) {
  Cursor& c = cursor();
  c.expect(":");
  const std::size_t at = c.pos();
  if (c.peek() == '(') {
    auto [in, out] = parse_function_type(c);
    if (in.size() != op.operands.size())
      c.fail_at(at, fmt::format("{} has {} operands but its type lists {}", op.spelling->name,
                                op.operands.size(), in.size()));
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i] != type_of(op.operands[i]))
        c.fail_at(at, fmt::format("operand {} of {} is {} but the type says {}", i, op.spelling->name,
                                  type_text(type_of(op.operands[i])), type_text(in[i])));
    op.result_types = std::move(out);
    return;
  }
  const TensorType t = parse_type(c);
  for (std::size_t i = 0; i < op.operands.size(); ++i)
    if (type_of(op.operands[i]) != t)
      c.fail_at(at, fmt::format("operand {} of {} is {} but the type says {}", i, op.spelling->name,
                                type_text(type_of(op.operands[i])), type_text(t)));
  op.result_types.assign(op.num_results, t);
}

ir::Module parse(std::string_view text, const std::string& file, int first_line,
                 const ParseOptions& options) {
  const ConstantBudget budget(options.max_constant_bytes);
  ir::Module m = Parser(text, file, first_line).run();
  for (ir::Function& f : m.functions) detail::link_manual_regions(f);
  ir::verify(m);
  return m;
}

std::vector<Split> split_input(std::string_view text) {
  std::vector<Split> out;
  std::size_t start = 0;
  int line = 1, start_line = 1;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, nl - pos);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.remove_suffix(1);
    while (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    if (l == "// -----") {
      out.push_back({text.substr(start, pos - start), start_line});
      start = nl + 1;
      start_line = line + 1;
    }
    pos = nl + 1;
    ++line;
  }
  if (start <= text.size()) out.push_back({text.substr(start), start_line});
  return out;
}

}  // namespace tlaloc::stablehlo

// The code model's printer (code.hpp).
#include "cppgen/code.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace tlaloc::cppgen {
namespace {

constexpr int kPrefix = 3, kConditional = 16;

// C++'s binary operators by how tightly they bind (they group left to right).
int binary_level(std::string_view op) {
  // clang-format off
  static constexpr std::array<std::pair<std::string_view, int>, 18> levels{{
      {"*", 5}, {"/", 5}, {"%", 5}, {"+", 6}, {"-", 6}, {"<<", 7}, {">>", 7}, {"<", 9}, {"<=", 9}, {">", 9},
      {">=", 9}, {"==", 10}, {"!=", 10}, {"&", 11}, {"^", 12}, {"|", 13}, {"&&", 14}, {"||", 15}}};
  // clang-format on
  for (const auto& [symbol, level] : levels)
    if (symbol == op) return level;
  return -1;
}

bool word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Where the string or character literal opened at s[i] ends (past its quote).
std::size_t past_literal(std::string_view s, std::size_t i) {
  const char quote = s[i];
  for (++i; i < s.size() && s[i] != quote; ++i)
    if (s[i] == '\\') ++i;
  return std::min(i + 1, s.size());
}

// The identifiers text reads: not a member's name, a qualified name's later parts
// or anything in a literal or a comment.
void identifiers(std::string_view s, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < s.size();) {
    if (s.substr(i, 2) == "//") return;
    if (s[i] == '"' || s[i] == '\'') {
      i = past_literal(s, i);
      continue;
    }
    if (!word(s[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && word(s[j])) ++j;
    const bool member =
        (i >= 1 && s[i - 1] == '.') || (i >= 2 && (s.substr(i - 2, 2) == "::" || s.substr(i - 2, 2) == "->"));
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0 && !member) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
}

// Where the number starting at s[i] ends: 1e-05 and 0x1p-3 are one token.
std::size_t past_number(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    const char c = s[i], before = s[i - 1];
    const bool sign =
        (c == '-' || c == '+') && (before == 'e' || before == 'E' || before == 'p' || before == 'P');
    if (!word(c) && c != '.' && !sign) break;
  }
  return i;
}

// Where statement s assigns to a variable (`x = ...`, `x[i] += ...`, `++x`, `x--`):
// its name, and where the rest of the statement starts; else empty.
std::pair<std::string, std::size_t> assigned(std::string_view s) {
  const bool pre = s.starts_with("++") || s.starts_with("--");
  std::size_t end = pre ? 2 : 0;
  const std::size_t start = end;
  while (end < s.size() && word(s[end])) ++end;
  if (end == start || std::isdigit(static_cast<unsigned char>(s[start])) != 0) return {};
  const std::string name(s.substr(start, end - start));
  if (pre) return {name, end};
  std::size_t at = end;
  if (at < s.size() && s[at] == '[') at = s.find(']', at);
  if (at == std::string_view::npos) return {};
  at = s.find_first_not_of(" ]", at);
  if (at == std::string_view::npos) return {};
  const std::string_view rest = s.substr(at);
  if (rest.starts_with("++") || rest.starts_with("--")) return {name, end};
  for (std::string_view op : {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
    if (rest.starts_with(op) && !rest.substr(op.size()).starts_with("=")) return {name, end};
  return {};
}

// The operator token at the start of s: the longest C++ operator spelled there.
std::string_view operator_at(std::string_view s) {
  static constexpr std::array<std::string_view, 22> longer{
      "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
      "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", "++", "--", "::", "->"};
  for (std::string_view op : longer)
    if (s.starts_with(op)) return op;
  return s.substr(0, 1);
}

// How tightly text of unknown form binds: as its loosest operator outside brackets (a
// chain of names, numbers, calls, member accesses and subscripts is primary). Where
// in doubt it binds looser than it may, so a printer only adds parentheses.
int text_level(std::string_view s) {
  int depth = 0, level = 0;
  bool operand = false;  // an operand ends just before: an operator here is binary
  bool closed = false;   // a bracket closed just before, outside brackets: (T)x is a cast
  const auto primary = [&] {
    if (closed && depth == 0) level = std::max(level, kPrefix);
    operand = true;
    closed = false;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '"' || c == '\'') {
      primary();
      i = past_literal(s, i) - 1;
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      primary();
      i = past_number(s, i) - 1;
    } else if (word(c)) {
      primary();
      while (i + 1 < s.size() && word(s[i + 1])) ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      if (closed && depth == 0 && c == '(') level = std::max(level, kPrefix);  // (T)(x) or (f)(x)
      ++depth;
      operand = closed = false;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
      operand = true;
      closed = depth == 0 && c == ')';
    } else if (depth > 0) {
      operand = closed = false;
    } else {
      const std::string_view op = operator_at(s.substr(i));
      i += op.size() - 1;
      const bool postfix = (op == "++" || op == "--") && operand;
      if (op != "." && op != "::" && op != "->" && !postfix)
        level = std::max(level, !operand ? kPrefix : binary_level(op) > 0 ? binary_level(op) : kConditional);
      operand = postfix;
      closed = false;
    }
  }
  return level;
}

std::string wrapped(const Expr& e, bool wrap) { return wrap ? fmt::format("({})", e.str()) : e.str(); }

std::string listed(const std::vector<Expr>& items) {
  std::string s;
  for (const Expr& e : items) s += (s.empty() ? "" : ", ") + e.str();
  return s;
}

}  // namespace

Expr Expr::name(std::string text) {
  Expr e;
  e.kind_ = Kind::atom;
  e.text_ = std::move(text);
  identifiers(e.text_, e.reads_);
  return e;
}

Expr Expr::text(std::string text) {
  Expr e = name(std::move(text));
  e.level_ = text_level(e.text_);
  return e;
}

Expr Expr::call(std::string callee, std::vector<Expr> args) {
  Expr e;
  e.kind_ = Kind::call;
  e.text_ = std::move(callee);
  e.parts_ = std::move(args);
  return e;
}

Expr Expr::prefix(std::string op, Expr operand) {
  Expr e;
  e.kind_ = Kind::prefix;
  e.text_ = std::move(op);
  e.parts_.push_back(std::move(operand));
  e.level_ = kPrefix;
  return e;
}

Expr Expr::binary(const std::string& op, Expr left, Expr right) {
  const int level = binary_level(op);
  if (level < 0) throw std::invalid_argument("not a binary operator of C++: '" + op + "'");
  Expr e;
  e.kind_ = Kind::binary;
  e.text_ = op;
  e.parts_ = {std::move(left), std::move(right)};
  e.level_ = level;
  return e;
}

Expr Expr::conditional(Expr test, Expr then, Expr otherwise) {
  Expr e;
  e.kind_ = Kind::conditional;
  e.parts_ = {std::move(test), std::move(then), std::move(otherwise)};
  e.level_ = kConditional;
  return e;
}

Expr Expr::member(Expr object, std::string rest) {
  Expr e;
  e.kind_ = Kind::member;
  e.text_ = std::move(rest);
  e.parts_.push_back(std::move(object));
  return e;
}

Expr Expr::braced(std::vector<Expr> items) {
  Expr e;
  e.kind_ = Kind::braced;
  e.parts_ = std::move(items);
  return e;
}

std::string Expr::hole(std::size_t i) { return fmt::format("\x01{}\x02", i); }

Expr Expr::spelled(const std::string& spelling, std::vector<Expr> operands) {
  Expr e;
  e.kind_ = Kind::spelled;
  std::size_t from = 0;
  for (std::size_t at = spelling.find('\x01'); at != std::string::npos; at = spelling.find('\x01', from)) {
    const std::size_t end = spelling.find('\x02', at);
    const std::size_t i = std::stoul(spelling.substr(at + 1, end - at - 1));
    e.pieces_.push_back(spelling.substr(from, at - from));
    e.parts_.push_back(operands.at(i));
    from = end + 1;
  }
  e.pieces_.push_back(spelling.substr(from));
  if (e.parts_.empty()) return text(spelling);
  const auto& p = e.pieces_;
  if (p.size() == 3 && p[0].empty() && p[2].empty() && p[1].size() >= 3 && p[1].front() == ' ' &&
      p[1].back() == ' ' && binary_level(p[1].substr(1, p[1].size() - 2)) > 0)
    return binary(p[1].substr(1, p[1].size() - 2), e.parts_[0], e.parts_[1]);
  for (std::size_t k = 0; k < e.parts_.size(); ++k) {
    const std::string_view before = p[k], after = p[k + 1];
    e.bare_.push_back((before.ends_with("(") || before.ends_with(", ")) &&
                      (after.starts_with(")") || after.starts_with(",")));
  }
  e.level_ = text_level(fmt::format("{}", fmt::join(p, "x")));
  return e;
}

Expr Expr::with_last_argument(Expr arg) const {
  Expr e = *this;
  if (kind_ == Kind::call) {
    e.parts_.push_back(std::move(arg));
    return e;
  }
  if (kind_ != Kind::spelled || !pieces_.back().ends_with(")"))
    throw std::logic_error("an argument added to an expression that is no call: " + str());
  std::string& last = e.pieces_.back();
  last.pop_back();
  const bool first = last.ends_with("(") || (last.empty() && e.pieces_.size() == 1);
  if (!first) last += ", ";
  e.parts_.push_back(std::move(arg));
  e.bare_.push_back(true);
  e.pieces_.push_back(")");
  return e;
}

std::string Expr::str() const {
  switch (kind_) {
    case Kind::none:
      return "";
    case Kind::atom:
      return text_;
    case Kind::call:
      return text_ + "(" + listed(parts_) + ")";
    case Kind::prefix:
      return text_ + wrapped(parts_[0], parts_[0].level_ >= kPrefix);
    case Kind::binary:
      return wrapped(parts_[0], parts_[0].level_ > level_) + " " + text_ + " " +
             wrapped(parts_[1], parts_[1].level_ >= level_ && parts_[1].level_ != 0);
    case Kind::conditional:
      return wrapped(parts_[0], parts_[0].level_ >= kConditional) + " ? " + parts_[1].str() + " : " +
             parts_[2].str();
    case Kind::member:
      return wrapped(parts_[0], parts_[0].level_ != 0) + text_;
    case Kind::braced:
      return "{" + listed(parts_) + "}";
    case Kind::spelled: {
      std::string s = pieces_[0];
      for (std::size_t k = 0; k < parts_.size(); ++k)
        s += wrapped(parts_[k], !bare_[k] && parts_[k].level_ != 0) + pieces_[k + 1];
      return s;
    }
  }
  return "";
}

bool Expr::reads(const std::string& name) const {
  return std::find(reads_.begin(), reads_.end(), name) != reads_.end() ||
         std::any_of(parts_.begin(), parts_.end(), [&](const Expr& e) { return e.reads(name); });
}

std::vector<Expr> texts(const std::vector<std::string>& items) {
  std::vector<Expr> out;
  for (const std::string& s : items) out.push_back(Expr::text(s));
  return out;
}

Stmt Stmt::line(std::string text, std::string declares) {
  Stmt s;
  s.text_ = std::move(text);
  s.name_ = std::move(declares);
  const auto [target, rest] = assigned(s.text_);
  s.writes_ = target;
  identifiers(std::string_view(s.text_).substr(rest), s.reads_);
  return s;
}

Stmt Stmt::comment(const std::string& text) { return line("// " + text); }

Stmt Stmt::blank() {
  Stmt s;
  s.kind_ = Kind::blank;
  return s;
}

Stmt Stmt::declare(std::string type, std::string name, Expr value, std::string comment) {
  Stmt s;
  s.kind_ = Kind::declare;
  s.text_ = std::move(type);
  s.name_ = std::move(name);
  s.expr_ = std::move(value);
  s.comment_ = std::move(comment);
  return s;
}

Stmt Stmt::assign(std::string target, Expr value, std::string comment) {
  Stmt s;
  s.kind_ = Kind::assign;
  s.text_ = std::move(target);
  s.expr_ = std::move(value);
  s.comment_ = std::move(comment);
  // An element's index is read.
  const std::size_t at = std::min(s.text_.find_first_of(".[("), s.text_.size());
  s.writes_ = s.text_.substr(0, at);
  identifiers(std::string_view(s.text_).substr(at), s.reads_);
  return s;
}

Stmt Stmt::guarded(Expr test, Stmt statement) {
  Stmt s;
  s.kind_ = Kind::guarded;
  s.expr_ = std::move(test);
  s.body_.push_back(std::move(statement));
  return s;
}

Stmt Stmt::if_(Expr test, Block then, Block otherwise, std::string comment) {
  Stmt s;
  s.kind_ = Kind::if_;
  s.expr_ = std::move(test);
  s.body_ = std::move(then);
  s.else_ = std::move(otherwise);
  s.comment_ = std::move(comment);
  return s;
}

Stmt Stmt::scope(std::string head, Block body, std::string tail) {
  Stmt s;
  s.kind_ = Kind::scope;
  s.text_ = std::move(head);
  s.body_ = std::move(body);
  s.comment_ = std::move(tail);
  identifiers(s.text_, s.reads_);
  return s;
}

// Prints statements, marking a declaration [[maybe_unused]] where nothing after it in
// its scope reads it and compilers may warn of that: a reference (a write through it
// is a use), or a variable of any type but the library's and the standard library's
// classes, whose constructors keep compilers quiet (a write to it is not a use).
class StmtPrinter {
 public:
  std::string block(const Block& b, int depth) {
    std::string out;
    for (std::size_t i = 0; i < b.size(); ++i) out += stmt(b, i, depth);
    return out;
  }

 private:
  enum class Warns { no, unread, unused };

  static Warns warns(std::string_view type) {
    for (std::string_view q : {"const ", "static ", "constexpr "})
      if (type.starts_with(q)) type.remove_prefix(q.size());
    if (type.ends_with("&")) return Warns::unused;
    for (std::string_view c : {"tl::", "std::vector<", "std::pair<", "std::string", "auto"})
      if (type.starts_with(c)) return Warns::no;
    return Warns::unread;
  }

  // An if whose paths print nothing is not printed.
  static bool prints(const Stmt& s) {
    return s.kind_ != Stmt::Kind::if_ || prints(s.body_) || prints(s.else_);
  }
  static bool prints(const Block& b) {
    return std::any_of(b.begin(), b.end(), [](const Stmt& s) { return prints(s); });
  }

  // Whether a statement of b from `from` on (and the blocks inside) reads `name`, or
  // writes it where writes count, before a declaration hides it.
  static bool used(const Block& b, std::size_t from, const std::string& name, bool writes) {
    for (std::size_t i = from; i < b.size(); ++i) {
      const Stmt& s = b[i];
      if (!prints(s)) continue;
      if (std::find(s.reads_.begin(), s.reads_.end(), name) != s.reads_.end() || s.expr_.reads(name))
        return true;
      if (writes && s.writes_ == name) return true;
      if (used(s.body_, 0, name, writes) || used(s.else_, 0, name, writes)) return true;
      if (s.name_ == name && (s.kind_ == Stmt::Kind::declare || s.kind_ == Stmt::Kind::line)) return false;
    }
    return false;
  }

  static std::string mark(const Block& b, std::size_t i, const std::string& type) {
    const Stmt& s = b[i];
    const Warns w = warns(type);
    if (w == Warns::no || s.text_.starts_with("[[maybe_unused]]")) return "";
    return used(b, i + 1, s.name_, w == Warns::unused) ? "" : "[[maybe_unused]] ";
  }

  static std::string comment(const std::string& c) { return c.empty() ? "" : "  // " + c; }

  // A statement without its indentation and line end (one that fits on one line).
  static std::string one_line(const Block& b, std::size_t i) {
    const Stmt& s = b[i];
    switch (s.kind_) {
      case Stmt::Kind::line:
        return (s.name_.empty() ? "" : mark(b, i, "")) + s.text_;
      case Stmt::Kind::declare:
        return mark(b, i, s.text_) + s.text_ + " " + s.name_ +
               (s.expr_.empty() ? "" : " = " + s.expr_.str()) + ";" + comment(s.comment_);
      case Stmt::Kind::assign:
        return s.text_ + " = " + s.expr_.str() + ";" + comment(s.comment_);
      case Stmt::Kind::guarded:
        return "if (" + s.expr_.str() + ") " + one_line(s.body_, 0);
      default:
        throw std::logic_error("a statement of several lines printed as one");
    }
  }

  std::string stmt(const Block& b, std::size_t i, int depth) {
    const Stmt& s = b[i];
    const std::string indent(std::size_t(2 * depth), ' ');
    switch (s.kind_) {
      case Stmt::Kind::blank:
        return "\n";
      case Stmt::Kind::scope: {
        const std::string head = s.opened_ ? "" : indent + (s.text_.empty() ? "{" : s.text_ + " {") + "\n";
        return head + block(s.body_, depth + 1) + indent + s.comment_ + "\n";
      }
      case Stmt::Kind::if_: {
        if (!prints(s)) return "";
        const bool negated = !prints(s.body_);
        const Expr test = negated ? Expr::prefix("!", s.expr_) : s.expr_;
        std::string out = indent + "if (" + test.str() + ") {" + comment(s.comment_) + "\n";
        out += block(negated ? s.else_ : s.body_, depth + 1);
        if (!negated && prints(s.else_)) out += indent + "} else {\n" + block(s.else_, depth + 1);
        return out + indent + "}\n";
      }
      default: {
        std::string text = one_line(b, i);
        for (std::size_t at = text.find('\n'); at != std::string::npos;
             at = text.find('\n', at + 1 + indent.size()))
          text.insert(at + 1, indent);
        return indent + text + "\n";
      }
    }
  }
};

std::string print(const Block& b, int depth) { return StmtPrinter().block(b, depth); }

void Builder::add(Stmt s) { current().push_back(std::move(s)); }

void Builder::add_all(Block b) {
  for (Stmt& s : b) add(std::move(s));
}

void Builder::open(std::string head, std::string tail) {
  open_.push_back({Stmt::scope(std::move(head), {}, std::move(tail))});
}

void Builder::open_if(Expr test, std::string comment) {
  open_.push_back({Stmt::if_(std::move(test), {}, {}, std::move(comment))});
}

void Builder::orelse() { open_.at(open_.size() - 1).in_else = true; }

void Builder::close() {
  Stmt s = std::move(open_.at(open_.size() - 1).stmt);
  open_.pop_back();
  add(std::move(s));
}

void Builder::close(std::string tail) {
  open_.at(open_.size() - 1).stmt.comment_ = std::move(tail);
  close();
}

void Builder::reopen(std::string text) {
  close(std::move(text));
  open("");
  open_.back().stmt.opened_ = true;
}

Block& Builder::at(std::size_t level) {
  if (level == 0) return top_;
  Open& o = open_.at(level - 1);
  return o.in_else ? o.stmt.else_ : o.stmt.body_;
}

Block Builder::take() {
  if (!open_.empty()) throw std::logic_error("a block taken with a scope still open");
  return std::move(top_);
}

}  // namespace tlaloc::cppgen

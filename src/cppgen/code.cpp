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
  static constexpr std::array<std::pair<std::string_view, int>, 18> levels{{
      {"*", 5},
      {"/", 5},
      {"%", 5},
      {"+", 6},
      {"-", 6},
      {"<<", 7},
      {">>", 7},
      {"<", 9},
      {"<=", 9},
      {">", 9},
      {">=", 9},
      {"==", 10},
      {"!=", 10},
      {"&", 11},
      {"^", 12},
      {"|", 13},
      {"&&", 14},
      {"||", 15},
  }};
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
// or anything in a literal.
void identifiers(std::string_view s, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < s.size();) {
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

// How tightly text of unknown form binds: a chain of names, numbers, member accesses
// and bracketed parts is primary; a leading minus makes a prefix expression.
int text_level(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = past_literal(s, i) - 1;
      if (depth == 0) return kConditional;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 && (i == 0 || !word(s[i - 1]))) {
      i = past_number(s, i) - 1;
    } else if (depth == 0 && !(word(c) || c == '.' || c == ':')) {
      return i == 0 && c == '-' && text_level(s.substr(1)) <= kPrefix ? kPrefix : kConditional;
    }
  }
  return 0;
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

void Expr::names(std::vector<std::string>& out) const {
  if (kind_ == Kind::atom) identifiers(text_, out);
  for (const Expr& e : parts_) e.names(out);
}

std::vector<Expr> texts(const std::vector<std::string>& items) {
  std::vector<Expr> out;
  for (const std::string& s : items) out.push_back(Expr::text(s));
  return out;
}

Stmt Stmt::line(std::string text, std::string declares, std::string type) {
  Stmt s;
  s.text_ = std::move(text);
  s.name_ = std::move(declares);
  s.type_ = std::move(type);
  identifiers(s.text_, s.reads_);
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
  if (const std::size_t at = s.text_.find_first_of(".[("); at != std::string::npos)
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
// its scope reads it and compilers warn of that: a reference (a write through it is a
// use) or a variable of a built-in type (a write to it is not).
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
    static constexpr std::array<std::string_view, 14> builtin{
        "bool",          "char",           "int",         "long",         "unsigned",
        "float",         "double",         "std::size_t", "std::int64_t", "std::int32_t",
        "std::uint64_t", "std::ptrdiff_t", "size_t",      "int64_t"};
    return std::find(builtin.begin(), builtin.end(), type) != builtin.end() ? Warns::unread : Warns::no;
  }

  // Whether a statement of b from `from` on (and the blocks inside) reads `name`, or
  // writes it where writes count, before a declaration hides it.
  static bool used(const Block& b, std::size_t from, const std::string& name, bool writes) {
    for (std::size_t i = from; i < b.size(); ++i) {
      const Stmt& s = b[i];
      std::vector<std::string> reads = s.reads_;
      s.expr_.names(reads);
      if (std::find(reads.begin(), reads.end(), name) != reads.end()) return true;
      if (writes && s.kind_ == Stmt::Kind::assign && (s.text_ == name || s.text_.starts_with(name + "[")))
        return true;
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
        return (s.name_.empty() || s.type_.empty() ? "" : mark(b, i, s.type_)) + s.text_;
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
      case Stmt::Kind::scope:
        return indent + (s.text_.empty() ? "{" : s.text_ + " {") + "\n" + block(s.body_, depth + 1) + indent +
               s.comment_ + "\n";
      case Stmt::Kind::if_: {
        if (s.body_.empty() && s.else_.empty()) return "";
        const bool negated = s.body_.empty();
        const Expr test = negated ? Expr::prefix("!", s.expr_) : s.expr_;
        std::string out = indent + "if (" + test.str() + ") {" + comment(s.comment_) + "\n";
        out += block(negated ? s.else_ : s.body_, depth + 1);
        if (!negated && !s.else_.empty()) out += indent + "} else {\n" + block(s.else_, depth + 1);
        return out + indent + "}\n";
      }
      default:
        return indent + one_line(b, i) + "\n";
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

Block& Builder::at(std::size_t level) {
  if (level == 0) return top_;
  Open& o = open_.at(level - 1);
  return o.in_else ? o.stmt.otherwise() : o.stmt.body();
}

Block Builder::take() {
  if (!open_.empty()) throw std::logic_error("a block taken with a scope still open");
  return std::move(top_);
}

}  // namespace tlaloc::cppgen

// A small model of C++ code, for the printers that write it (tools/tlaloc-grad).
// An expression is a tree, and its printer adds the parentheses C++'s grammar needs
// and no more. A statement knows what it declares and what it reads, so the printer
// marks a declaration nothing reads [[maybe_unused]] where compilers would warn of it.
// A block is printed once, indented by its nesting.
//
// What a statement reads is found in its expressions' names and, for text written out
// (Stmt::line, Expr::text), in the identifiers of its code: a name that appears there
// but is not read only keeps a declaration unmarked, never breaks a build.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tlaloc::cppgen {

class Expr {
 public:
  Expr() = default;  // none (empty)

  // A name, a literal or any other primary expression written out.
  static Expr name(std::string text);
  // C++ text of unknown form: primary where it is a name, a number or a call (a
  // member access of one included), a prefix minus where it starts with one, else it
  // binds loosest. Its names are the identifiers in it.
  static Expr text(std::string text);
  static Expr call(std::string callee, std::vector<Expr> args);
  static Expr prefix(std::string op, Expr operand);
  // `left op right`, op one of C++'s binary operators.
  static Expr binary(const std::string& op, Expr left, Expr right);
  static Expr conditional(Expr test, Expr then, Expr otherwise);
  // object followed by `rest`: `.dtype()`, `.shape()`, `[k]`.
  static Expr member(Expr object, std::string rest);
  static Expr braced(std::vector<Expr> items);
  // An op's spelling (OpDef::cpp) whose operands were named hole(0), hole(1), ...,
  // with those operands put in: an infix operator's as a binary expression, a call's
  // arguments bare, an operand anywhere else (before a member access) parenthesized
  // unless primary.
  static Expr spelled(const std::string& spelling, std::vector<Expr> operands);
  static std::string hole(std::size_t i);
  // The same call with `arg` as its last argument (a call or a spelled call only).
  Expr with_last_argument(Expr arg) const;

  bool empty() const { return kind_ == Kind::none; }
  // How tightly it binds: 0 for a primary or postfix expression, 3 for a prefix
  // operator, then the binary operators' levels (5 for *, 6 for +, ...), 16 for ?:.
  int level() const { return level_; }
  std::string str() const;
  // Whether it reads the identifier `name` (a member's name and a qualified name's
  // parts after `::` are not reads).
  bool reads(const std::string& name) const;

 private:
  enum class Kind { none, atom, call, prefix, binary, conditional, member, braced, spelled };
  Kind kind_ = Kind::none;
  std::string text_;                 // atom, callee, operator, member's rest
  std::vector<std::string> pieces_;  // spelled: the text between operands
  std::vector<bool> bare_;           // spelled: operand i is a call's argument
  std::vector<Expr> parts_;
  std::vector<std::string> reads_;  // atom: the identifiers its text reads
  int level_ = 0;
};

// Each item as Expr::text.
std::vector<Expr> texts(const std::vector<std::string>& items);

class Stmt;
using Block = std::vector<Stmt>;

class Stmt {
 public:
  // A statement written out (`;` and any comment included), reading the identifiers
  // in its code but an assignment's target (`x = ...`, `x += ...`, `++x`), which it
  // writes; `declares`: the name it declares, if any (of a type not known here:
  // marked where nothing reads it).
  static Stmt line(std::string text, std::string declares = {});
  static Stmt comment(const std::string& text);  // `// text`
  static Stmt blank();
  // `type name = value;` (`type name;` without one), then `  // comment` if given.
  static Stmt declare(std::string type, std::string name, Expr value = {}, std::string comment = {});
  // `target = value;`: the target's variable is written, not read.
  static Stmt assign(std::string target, Expr value, std::string comment = {});
  // `if (test) statement` on one line.
  static Stmt guarded(Expr test, Stmt statement);
  // `if (test) { then } else { otherwise }`: without the else where it is empty,
  // as `if (!test) { otherwise }` where only the then is, and nothing where both are.
  static Stmt if_(Expr test, Block then, Block otherwise = {}, std::string comment = {});
  // `head {` body `tail`: a loop, a lambda (tail `};`), a function. A scope whose head
  // is empty opens with `{`.
  static Stmt scope(std::string head, Block body, std::string tail = "}");

 private:
  friend class StmtPrinter;
  friend class Builder;
  enum class Kind { line, blank, declare, assign, guarded, if_, scope };
  Kind kind_ = Kind::line;
  std::string text_;                // line, comment, scope's head; declare: type; assign: target
  std::string name_;                // declare, and a line's declared name
  std::string comment_;             // declare, assign, if; scope: its tail
  Expr expr_;                       // declare's value, assign's value, if's test
  std::vector<std::string> reads_;  // the identifiers its text reads (a line's, a scope head's)
  std::string writes_;              // the variable an assignment writes
  bool opened_ = false;             // a scope opened by the line before's end (`} else {`)
  Block body_, else_;               // if's paths, a scope's body, guarded's statement
};

// The statements as C++ text, indented by two spaces a level from `depth` (each line
// of a statement written out on several lines).
std::string print(const Block& b, int depth = 0);

// Builds a block statement by statement, with scopes and ifs opened and closed in
// turn (a printer's walk over a program).
class Builder {
 public:
  void add(Stmt s);
  void line(std::string text) { add(Stmt::line(std::move(text))); }
  void add_all(Block b);
  void open(std::string head, std::string tail = "}");
  void open_if(Expr test, std::string comment = {});
  void orelse();  // what is added from now on is the open if's else
  void close();
  void close(std::string tail);  // a scope, its last line `tail`
  // Closes a scope with the line `text` (`} else {`), which opens the next one.
  void reopen(std::string text);
  // How many scopes and ifs are open; the block statements are added to at `level`
  // of them (0: the outermost block).
  std::size_t depth() const { return open_.size(); }
  Block& at(std::size_t level);
  Block& current() { return at(depth()); }
  Block take();  // everything closed

 private:
  struct Open {
    Stmt stmt;
    bool in_else = false;
  };
  Block top_;
  std::vector<Open> open_;
};

}  // namespace tlaloc::cppgen

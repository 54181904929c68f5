// A character cursor over MLIR text: MLIR's syntax is context sensitive
// (`2x3xf32` inside `tensor<>`), so the parser reads characters rather than a
// token stream. Every error carries the line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tlaloc/error.hpp"

namespace tlaloc::stablehlo {

// A syntax or semantic error in StableHLO text, with its position (from 1).
class ParseError : public Error {
 public:
  ParseError(const std::string& file, int line, int col, const std::string& what);
  int line() const { return line_; }
  int col() const { return col_; }

 private:
  int line_;
  int col_;
};

class Cursor {
 public:
  Cursor(std::string_view text, std::string file, int first_line = 1);

  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const;
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  int line_of(std::size_t pos) const;
  int col_of(std::size_t pos) const;
  int line() const { return line_of(pos_); }
  int col() const { return col_of(pos_); }

  void skip_space();  // whitespace and // comments
  bool at_end();
  char peek();  // after skipping space; '\0' at the end
  char peek_raw() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool eat(std::string_view punct);  // punctuation such as "->", "{", ":"
  void expect(std::string_view punct);
  bool eat_word(std::string_view word);  // a keyword not followed by an identifier character
  void expect_word(std::string_view word);

  std::string identifier();      // [A-Za-z_][A-Za-z0-9_$.-]*
  std::string value_name();      // %name or %0 (the text after %), with an optional #n kept
  std::string symbol_name();     // @name or @"quoted"
  std::string string_literal();  // "..." with escapes
  std::int64_t integer();        // optional '-'; decimal or 0x hex
  bool at_number();
  std::string number_text();  // a decimal or hex literal as written
  std::string_view rest() const { return text_.substr(pos_); }
  std::string_view text() const { return text_; }

  // Counts nesting of regions, arrays and types: deep nesting is refused, not a
  // stack overflow.
  struct Depth {
    explicit Depth(Cursor& c);
    ~Depth() { --c_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;

   private:
    Cursor& c_;
  };

 private:
  std::string_view text_;
  std::string file_;
  int first_line_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace tlaloc::stablehlo

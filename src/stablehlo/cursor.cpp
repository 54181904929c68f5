#include "stablehlo/cursor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace tlaloc::stablehlo {
namespace {

constexpr int kMaxDepth = 200;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}

}  // namespace

ParseError::ParseError(const std::string& file, int line, int col, const std::string& what)
    : Error(fmt::format("{}:{}:{}: {}", file, line, col, what)), line_(line), col_(col) {}

Cursor::Cursor(std::string_view text, std::string file, int first_line)
    : text_(text), file_(std::move(file)), first_line_(first_line) {}

int Cursor::line_of(std::size_t pos) const {
  pos = std::min(pos, text_.size());
  return first_line_ + int(std::count(text_.begin(), text_.begin() + std::ptrdiff_t(pos), '\n'));
}

int Cursor::col_of(std::size_t pos) const {
  pos = std::min(pos, text_.size());
  const std::size_t nl = text_.rfind('\n', pos == 0 ? 0 : pos - 1);
  if (pos == 0 || nl == std::string_view::npos) return int(pos) + 1;
  return int(pos - nl);
}

void Cursor::fail(const std::string& what) const { fail_at(pos_, what); }

void Cursor::fail_at(std::size_t pos, const std::string& what) const {
  throw ParseError(file_, line_of(pos), col_of(pos), what);
}

void Cursor::skip_space() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      const std::size_t nl = text_.find('\n', pos_);
      pos_ = nl == std::string_view::npos ? text_.size() : nl;
    } else {
      break;
    }
  }
}

bool Cursor::at_end() {
  skip_space();
  return pos_ >= text_.size();
}

char Cursor::peek() {
  skip_space();
  return peek_raw();
}

bool Cursor::eat(std::string_view punct) {
  skip_space();
  if (text_.substr(pos_, punct.size()) != punct) return false;
  pos_ += punct.size();
  return true;
}

void Cursor::expect(std::string_view punct) {
  if (!eat(punct)) {
    skip_space();
    fail(fmt::format("expected '{}'{}", punct, at_end() ? " but the text ended" : ""));
  }
}

bool Cursor::eat_word(std::string_view word) {
  skip_space();
  if (text_.substr(pos_, word.size()) != word) return false;
  const std::size_t end = pos_ + word.size();
  if (end < text_.size() && ident_char(text_[end])) return false;
  pos_ = end;
  return true;
}

void Cursor::expect_word(std::string_view word) {
  if (!eat_word(word)) fail(fmt::format("expected '{}'", word));
}

std::string Cursor::identifier() {
  skip_space();
  if (pos_ >= text_.size() || !ident_start(text_[pos_])) fail("expected an identifier");
  const std::size_t start = pos_;
  while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

std::string Cursor::value_name() {
  skip_space();
  if (peek_raw() != '%') fail("expected a value name such as %0");
  ++pos_;
  const std::size_t start = pos_;
  while (pos_ < text_.size() && (ident_char(text_[pos_]) || text_[pos_] == '#')) ++pos_;
  if (pos_ == start) fail("expected a value name after '%'");
  return std::string(text_.substr(start, pos_ - start));
}

std::string Cursor::symbol_name() {
  skip_space();
  if (peek_raw() != '@') fail("expected a symbol such as @main");
  ++pos_;
  if (peek_raw() == '"') return string_literal();
  const std::size_t start = pos_;
  while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
  if (pos_ == start) fail("expected a symbol name after '@'");
  return std::string(text_.substr(start, pos_ - start));
}

std::string Cursor::string_literal() {
  skip_space();
  if (peek_raw() != '"') fail("expected a string");
  const std::size_t start = pos_++;
  std::string out;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    char c = text_[pos_++];
    if (c == '\n') fail_at(start, "unterminated string");
    if (c == '\\' && pos_ < text_.size()) {
      const char e = text_[pos_++];
      if (e == 'n')
        c = '\n';
      else if (e == 't')
        c = '\t';
      else if (e == '"' || e == '\\')
        c = e;
      else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < text_.size() &&
               std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        c = char(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16));
      } else {
        fail("unknown escape in string");
      }
    }
    out += c;
  }
  if (pos_ >= text_.size()) fail_at(start, "unterminated string");
  ++pos_;
  return out;
}

bool Cursor::at_number() {
  skip_space();
  const char c = peek_raw();
  if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return (c == '-' || c == '+') && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]));
}

std::string Cursor::number_text() {
  if (!at_number()) fail("expected a number");
  const std::size_t start = pos_;
  if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
  if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
    pos_ += 2;
    while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  } else {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool exp_sign = (c == '-' || c == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' && !exp_sign)
        break;
      ++pos_;
    }
  }
  return std::string(text_.substr(start, pos_ - start));
}

std::int64_t Cursor::integer() {
  const std::size_t start = pos_;
  const std::string t = number_text();
  const bool neg = t[0] == '-';
  const std::string digits = t.substr(t[0] == '-' || t[0] == '+' ? 1 : 0);
  if (digits.find_first_of(".eE") != std::string::npos && digits.rfind("0x", 0) != 0)
    fail_at(start, "expected an integer, got " + t);
  unsigned long long v = 0;
  try {
    std::size_t used = 0;
    v = std::stoull(digits, &used, 0);
    if (used != digits.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    fail_at(start, "integer out of range or malformed: " + t);
  }
  if (v > (neg ? 9223372036854775808ull : 18446744073709551615ull))
    fail_at(start, "integer out of range: " + t);
  return neg ? std::int64_t(0ull - v) : std::int64_t(v);
}

Cursor::Depth::Depth(Cursor& c) : c_(c) {
  if (++c_.depth_ > kMaxDepth) {
    --c_.depth_;
    c_.fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
  }
}

}  // namespace tlaloc::stablehlo

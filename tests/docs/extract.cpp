// Writes a GoogleTest file from the C++ and Python blocks of one Markdown page, so
// that the snippets of README.md and docs/*.md are compiled and run (CONTRIBUTING.md,
// "Snippets are tests"). Usage: extract PAGE.md NAME_IN_MESSAGES OUT.cpp
//
// Every ```cpp and ```python block becomes one test, TEST(<page>, line_<N>), N the
// line of its fence. Comments hidden from readers, directly above the block (blank
// lines between are fine), say what else it needs:
//   <!-- doc-test before ... -->       code run before the block, in its language
//   <!-- doc-test definitions ... -->  C++ functions and types the block uses
//   <!-- doc-test namespace -->        the C++ block holds definitions, not statements
//   <!-- doc-test excerpt PATH -->     the C++ block is quoted from PATH (relative to the
//                                      project); the test checks that it still is
//   <!-- doc-test prepare ... -->      C++ statements run before a Python block's script
//                                      (to write the files it reads)
// and directly below it:
//   <!-- doc-test after ... -->        code run after the block (its checks)
// A C++ block's `#include` and `namespace a = b;` lines hold for the whole page: they
// go to the top of the file. `#line` directives make the compiler name the page's
// lines; a Python script keeps each line on its page's line number.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Line {
  int number = 0;
  std::string text;
};
using Lines = std::vector<Line>;

struct Block {
  int fence = 0;  // the line of the opening ```
  bool python = false;
  Lines code, before, definitions, after, prepare;
  bool at_namespace_scope = false;
  std::string excerpt_of;  // a path, for a quoted block
  std::string next_text;   // the page's next code block (any language), for checks
};

[[noreturn]] void fail(const std::string& page, int line, const std::string& what) {
  throw std::runtime_error(page + ":" + std::to_string(line) + ": " + what);
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// What a page's directives say about the next block, collected until its fence.
struct Pending {
  int first_line = 0;
  Block block;
  bool any = false;
};

class PageReader {
 public:
  PageReader(std::string page, std::vector<std::string> lines)
      : page_(std::move(page)), lines_(std::move(lines)) {}

  std::vector<Block> read() {
    while (at_ < lines_.size()) {
      const std::string& text = lines_[at_];
      const int number = line_number();
      if (starts_with(text, "<!-- doc-test")) {
        directive(text.substr(13), number);
      } else if (starts_with(text, "```")) {
        fence(trim(text.substr(3)), number);
      } else {
        if (!trim(text).empty()) {
          if (pending_.any)
            fail(page_, pending_.first_line, "a doc-test comment not followed by a code block");
          after_may_attach_ = false;
        }
        ++at_;
      }
    }
    if (pending_.any) fail(page_, pending_.first_line, "a doc-test comment not followed by a code block");
    return std::move(blocks_);
  }

 private:
  int line_number() const { return static_cast<int>(at_) + 1; }

  // Lines up to the closing "-->", as code.
  Lines hidden_code(int opened) {
    Lines code;
    for (++at_; at_ < lines_.size(); ++at_) {
      if (trim(lines_[at_]) == "-->") {
        ++at_;
        return code;
      }
      code.push_back({line_number(), lines_[at_]});
    }
    fail(page_, opened, "a doc-test comment without its closing -->");
  }

  void directive(const std::string& rest, int number) {
    const std::string words = trim(rest);
    const bool one_line = words.size() >= 3 && words.ends_with("-->");
    const std::string head = one_line ? trim(words.substr(0, words.size() - 3)) : words;
    if (head == "after") {
      if (!after_may_attach_) fail(page_, number, "`doc-test after` must come directly below a code block");
      blocks_.back().after = hidden_code(number);
      after_may_attach_ = false;
      return;
    }
    if (!pending_.any) pending_ = {number, {}, true};
    after_may_attach_ = false;
    if (head == "before" && !one_line) {
      pending_.block.before = hidden_code(number);
    } else if (head == "definitions" && !one_line) {
      pending_.block.definitions = hidden_code(number);
    } else if (head == "prepare" && !one_line) {
      pending_.block.prepare = hidden_code(number);
    } else if (head == "namespace" && one_line) {
      pending_.block.at_namespace_scope = true;
      ++at_;
    } else if (starts_with(head, "excerpt ") && one_line) {
      pending_.block.excerpt_of = trim(head.substr(8));
      ++at_;
    } else {
      fail(
          page_, number,
          "unknown doc-test comment '" + head +
              "' (before, definitions, prepare, after: several lines closed by -->; namespace, excerpt PATH: "
              "one line)");
    }
  }

  void fence(const std::string& language, int number) {
    Lines code;
    for (++at_; at_ < lines_.size() && !starts_with(lines_[at_], "```"); ++at_)
      code.push_back({line_number(), lines_[at_]});
    if (at_ == lines_.size()) fail(page_, number, "a code block without its closing ```");
    ++at_;
    std::string text;
    for (const Line& line : code) text += line.text + "\n";
    if (waiting_for_next_text_) blocks_.back().next_text = text;
    waiting_for_next_text_ = false;
    if (language != "cpp" && language != "python") {
      if (pending_.any)
        fail(page_, pending_.first_line, "a doc-test comment above a ```" + language + " block");
      after_may_attach_ = false;
      return;
    }
    Block block = std::move(pending_.block);
    const int directives = pending_.first_line;
    pending_ = {};
    block.fence = number;
    block.python = language == "python";
    const bool cpp_only = !block.definitions.empty() || block.at_namespace_scope || !block.excerpt_of.empty();
    if (block.python && cpp_only)
      fail(page_, directives, "definitions, namespace and excerpt are for C++ blocks");
    if (!block.python && !block.prepare.empty()) fail(page_, directives, "prepare is for Python blocks");
    block.code = std::move(code);
    blocks_.push_back(std::move(block));
    after_may_attach_ = true;
    waiting_for_next_text_ = true;
  }

  std::string page_;
  std::vector<std::string> lines_;
  std::size_t at_ = 0;
  std::vector<Block> blocks_;
  Pending pending_;
  bool after_may_attach_ = false;
  bool waiting_for_next_text_ = false;
};

bool page_wide(const std::string& line) {
  const std::string t = trim(line);
  return starts_with(t, "#include") ||
         (starts_with(t, "namespace ") && t.find('=') != std::string::npos && t.ends_with(";"));
}

std::string raw_string(const std::string& text) { return "R\"doc_test(" + text + ")doc_test\""; }

class Writer {
 public:
  Writer(std::ostringstream& out, std::string page, std::string file)
      : out_(out), page_(std::move(page)), file_(std::move(file)) {}

  // Writes `lines` (the page-wide ones left out) under the page's line numbers, then
  // gives the lines after them back to the written file.
  void code(const Lines& lines, bool keep_page_wide) {
    int expected = -1;
    for (const Line& line : lines) {
      if (!keep_page_wide && page_wide(line.text)) continue;
      if (line.number != expected) out_ << "#line " << line.number << " \"" << page_ << "\"\n";
      out_ << line.text << "\n";
      expected = line.number + 1;
    }
    if (expected == -1) return;
    const std::string text = out_.str();
    out_ << "#line " << std::count(text.begin(), text.end(), '\n') + 2 << " \"" << file_ << "\"\n";
  }

  void block(const Block& b, const std::string& suite) {
    out_ << "\nnamespace doc_test_line_" << b.fence << " {\n";
    out_ << "[[maybe_unused]] constexpr std::string_view next_block = " << raw_string(b.next_text) << ";\n";
    if (b.python) {
      out_ << "TEST(" << suite << ", line_" << b.fence << ") {\n";
      code(b.prepare, false);
      out_ << "  doc_test::run_python(\"" << page_ << "\", " << b.fence << ", " << raw_string(script(b))
           << ");\n}\n";
    } else if (!b.excerpt_of.empty()) {
      std::string text;
      for (const Line& line : b.code) text += line.text + "\n";
      out_ << "TEST(" << suite << ", line_" << b.fence << ") {\n  doc_test::expect_excerpt(\"" << page_
           << "\", " << b.fence << ", \"" << b.excerpt_of << "\", " << raw_string(text) << ");\n}\n";
    } else {
      code(b.definitions, false);
      if (b.at_namespace_scope) code(b.code, false);
      out_ << "TEST(" << suite << ", line_" << b.fence << ") {\n";
      code(b.before, false);
      if (!b.at_namespace_scope) code(b.code, false);
      code(b.after, false);
      out_ << "}\n";
    }
    out_ << "}  // namespace doc_test_line_" << b.fence << "\n";
  }

 private:
  // The Python code, each line on its page's line number, so that a traceback names it.
  static std::string script(const Block& b) {
    std::string text;
    int at = 1;
    for (const Lines* part : {&b.before, &b.code, &b.after})
      for (const Line& line : *part) {
        for (; at < line.number; ++at) text += "\n";
        text += line.text + "\n";
        ++at;
      }
    return text;
  }

  std::ostringstream& out_;
  std::string page_, file_;
};

std::string suite_name(const std::string& page) {
  std::string stem = page.substr(page.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  for (char& c : stem)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  return stem;
}

void write(std::ostringstream& out, const std::string& page, const std::string& file,
           const std::vector<Block>& blocks) {
  out << "// Written by tests/docs/extract.cpp from " << page << ": edit the page, not this file.\n";
  out << "#include \"support.hpp\"\n";
  Lines wide;
  for (const Block& b : blocks) {
    if (!b.excerpt_of.empty()) continue;
    const std::vector<const Lines*> cpp =
        b.python ? std::vector{&b.prepare} : std::vector{&b.definitions, &b.before, &b.code, &b.after};
    for (const Lines* part : cpp)
      for (const Line& line : *part)
        if (page_wide(line.text)) wide.push_back(line);
  }
  Writer writer(out, page, file);
  writer.code(wide, true);
  for (const Block& b : blocks) writer.block(b, suite_name(page));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: extract PAGE.md NAME_IN_MESSAGES OUT.cpp\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    const std::vector<Block> blocks = PageReader(argv[2], lines).read();
    std::ostringstream text;
    write(text, argv[2], argv[3], blocks);
    std::ofstream out(argv[3]);
    out << text.str();
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[3]);
  } catch (const std::exception& e) {
    std::cerr << "extract: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

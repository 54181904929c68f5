// The code model of printed C++ (src/cppgen/code.hpp): parentheses from precedence,
// spellings with their operands put in, and declarations nothing reads marked.
#include "cppgen/code.hpp"

#include <gtest/gtest.h>

namespace {

using tlaloc::cppgen::Block;
using tlaloc::cppgen::Builder;
using tlaloc::cppgen::Expr;
using tlaloc::cppgen::Stmt;

Expr n(const char* name) { return Expr::name(name); }

TEST(CodeModel, ParenthesesFollowPrecedence) {
  const Expr sum = Expr::binary("+", n("a"), n("b"));
  EXPECT_EQ(Expr::binary("*", sum, n("c")).str(), "(a + b) * c");
  EXPECT_EQ(Expr::binary("+", Expr::binary("*", n("a"), n("b")), n("c")).str(), "a * b + c");
  // Left to right: a - b - c, but floating-point sums keep their order.
  EXPECT_EQ(Expr::binary("-", Expr::binary("-", n("a"), n("b")), n("c")).str(), "a - b - c");
  EXPECT_EQ(Expr::binary("-", n("a"), Expr::binary("-", n("b"), n("c"))).str(), "a - (b - c)");
  EXPECT_EQ(Expr::binary("+", n("a"), sum).str(), "a + (a + b)");
  EXPECT_EQ(Expr::prefix("-", Expr::prefix("-", n("x"))).str(), "-(-x)");
  EXPECT_EQ(Expr::prefix("-", sum).str(), "-(a + b)");
  EXPECT_EQ(Expr::member(sum, ".dtype()").str(), "(a + b).dtype()");
  EXPECT_EQ(Expr::member(Expr::call("tl::f", {sum}), ".dtype()").str(), "tl::f(a + b).dtype()");
  const Expr pick = Expr::conditional(n("c"), n("a"), n("b"));
  EXPECT_EQ(Expr::binary("*", pick, n("x")).str(), "(c ? a : b) * x");
  EXPECT_EQ(Expr::call("f", {pick, sum}).str(), "f(c ? a : b, a + b)");
  EXPECT_EQ(Expr::conditional(pick, n("a"), pick).str(), "(c ? a : b) ? a : c ? a : b");
  EXPECT_EQ(Expr::braced({n("a"), sum}).str(), "{a, a + b}");
  EXPECT_THROW(Expr::binary("=", n("a"), n("b")), std::invalid_argument);
}

TEST(CodeModel, TextOfUnknownFormBindsLoosestUnlessPrimary) {
  EXPECT_EQ(Expr::text("x").level(), 0);
  EXPECT_EQ(Expr::text("tl::f(a + b, \"c - d\").shape()[0]").level(), 0);
  EXPECT_EQ(Expr::text("(a ? b : c)").level(), 0);
  EXPECT_EQ(Expr::text("-x").level(), 3);
  EXPECT_EQ(Expr::text("1e-05").level(), 0);
  EXPECT_EQ(Expr::text("-0x1p-3").level(), 3);
  EXPECT_EQ(Expr::text("!x.defined()").level(), 3);
  EXPECT_EQ(Expr::text("(double)n").level(), 3);
  EXPECT_EQ(Expr::text("a1 - 2").level(), 6);
  EXPECT_EQ(Expr::text("a * -b").level(), 5);
  EXPECT_EQ(Expr::text("k0 == 0").level(), 10);
  EXPECT_EQ(Expr::text("i++ < n && ok").level(), 14);
  EXPECT_EQ(Expr::text("c ? a : b").level(), 16);
  EXPECT_EQ(Expr::text("n = 2").level(), 16);
  EXPECT_EQ(Expr::text("std::vector<int>(3)").level(), 9);  // read as comparisons: looser, safe
  EXPECT_EQ(Expr::binary("*", n("x"), Expr::text("n + 1")).str(), "x * (n + 1)");
  EXPECT_EQ(Expr::member(Expr::text("-x"), ".dtype()").str(), "(-x).dtype()");
  EXPECT_EQ(Expr::conditional(Expr::text("k0 == 0"), n("a"), n("b")).str(), "k0 == 0 ? a : b");
  EXPECT_EQ(Expr::binary("==", n("a"), Expr::text("k0 == 0")).str(), "a == (k0 == 0)");
  EXPECT_EQ(Expr::binary("-", n("a"), Expr::text("-x")).str(), "a - -x");  // spaced: not a decrement
}

TEST(CodeModel, SpellingsTakeTheirOperands) {
  const Expr sum = Expr::binary("+", n("a"), n("b"));
  const std::string h0 = Expr::hole(0), h1 = Expr::hole(1);
  // A call's argument bare, an operand before a member access parenthesized.
  EXPECT_EQ(Expr::spelled("tl::sum(" + h0 + ", {0}, false)", {sum}).str(), "tl::sum(a + b, {0}, false)");
  EXPECT_EQ(Expr::spelled(h0 + ".astype(tl::DType::f32)", {sum}).str(), "(a + b).astype(tl::DType::f32)");
  EXPECT_EQ(Expr::spelled("tl::f(" + h1 + ", " + h0 + ", " + h1 + ")", {n("x"), sum}).str(),
            "tl::f(a + b, x, a + b)");
  // An infix operator's spelling is a binary expression.
  const Expr product = Expr::spelled(h0 + " * " + h1, {sum, n("c")});
  EXPECT_EQ(product.level(), 5);
  EXPECT_EQ(product.str(), "(a + b) * c");
  EXPECT_EQ(Expr::spelled("tl::zeros({2})", {}).str(), "tl::zeros({2})");
  // The cotangent so far given as a call's last argument.
  EXPECT_EQ(Expr::spelled("tl::pad_backward(" + h0 + ")", {n("g")}).with_last_argument(n("d")).str(),
            "tl::pad_backward(g, d)");
  EXPECT_EQ(Expr::call("f", {}).with_last_argument(n("d")).str(), "f(d)");
  EXPECT_THROW(sum.with_last_argument(n("d")), std::logic_error);
}

TEST(CodeModel, NamesReadAreIdentifiersOutsideLiteralsAndMembers) {
  const Expr e = Expr::call("tl::zeros_like", {Expr::text("p.at(\"w x\").shape()[k]")});
  EXPECT_TRUE(e.reads("p"));
  EXPECT_TRUE(e.reads("k"));
  for (const char* no : {"tl", "zeros_like", "at", "w", "x", "shape"}) EXPECT_FALSE(e.reads(no)) << no;
}

std::string printed(const Block& b) { return tlaloc::cppgen::print(b); }

TEST(CodeModel, DeclarationsNothingReadsAreMarked) {
  // A built-in type written but never read: compilers warn of it.
  EXPECT_EQ(printed({Stmt::declare("bool", "c", n("false")), Stmt::assign("c", n("true"))}),
            "[[maybe_unused]] bool c = false;\nc = true;\n");
  EXPECT_EQ(printed({Stmt::declare("bool", "c", n("false")), Stmt::if_(n("c"), {Stmt::line("f();")})}),
            "bool c = false;\nif (c) {\n  f();\n}\n");
  // A reference written through is used; one nothing mentions is not.
  EXPECT_EQ(printed({Stmt::declare("tl::Tensor&", "d", n("e")), Stmt::assign("d", n("g"))}),
            "tl::Tensor& d = e;\nd = g;\n");
  EXPECT_EQ(printed({Stmt::declare("const tl::Tensor&", "d", n("e"))}),
            "[[maybe_unused]] const tl::Tensor& d = e;\n");
  // A class type's constructor may do the work: no warning, no mark.
  EXPECT_EQ(printed({Stmt::declare("tl::Tensor", "t")}), "tl::Tensor t;\n");
  // A line declaring a name, read in a scope after it.
  EXPECT_EQ(printed({Stmt::line("const std::size_t at = p.index(\"w\");", "at"),
                     Stmt::scope("for (;;)", {Stmt::line("g(at);")})}),
            "const std::size_t at = p.index(\"w\");\nfor (;;) {\n  g(at);\n}\n");
  // One nothing reads after it: a name in a comment or a string is no read.
  EXPECT_EQ(printed({Stmt::line("const int n = 2;", "n"), Stmt::line("f(\"n\");  // n")}),
            "[[maybe_unused]] const int n = 2;\nf(\"n\");  // n\n");
  // An assignment written out writes its target: a variable only written is unread.
  EXPECT_EQ(printed({Stmt::line("double s = a;", "s"), Stmt::line("s = b;"), Stmt::line("s += 1;"),
                     Stmt::line("++s;")}),
            "[[maybe_unused]] double s = a;\ns = b;\ns += 1;\n++s;\n");
  EXPECT_EQ(printed({Stmt::line("double s = a;", "s"), Stmt::line("t[s] = b;")}),
            "double s = a;\nt[s] = b;\n");
  EXPECT_EQ(printed({Stmt::line("double s = a;", "s"), Stmt::line("s == b;")}), "double s = a;\ns == b;\n");
  // An if that prints nothing reads nothing.
  EXPECT_EQ(printed({Stmt::declare("bool", "c", n("false")), Stmt::if_(n("c"), {Stmt::if_(n("d"), {})})}),
            "[[maybe_unused]] bool c = false;\n");
  // What a nested declaration of the same name hides is not a read of the outer one.
  EXPECT_EQ(printed({Stmt::declare("int", "k", n("0")),
                     Stmt::scope("", {Stmt::declare("int", "k", n("1")), Stmt::line("g(k);")})}),
            "[[maybe_unused]] int k = 0;\n{\n  int k = 1;\n  g(k);\n}\n");
}

TEST(CodeModel, IfsPrintOnlyTheirPathsThatHaveStatements) {
  const Expr test = Expr::binary("&&", n("a"), n("b"));
  EXPECT_EQ(printed({Stmt::if_(test, {}, {})}), "");
  EXPECT_EQ(printed({Stmt::if_(test, {}, {Stmt::line("f();")})}), "if (!(a && b)) {\n  f();\n}\n");
  EXPECT_EQ(printed({Stmt::if_(n("c"), {Stmt::line("f();")}, {Stmt::line("g();")}, "why")}),
            "if (c) {  // why\n  f();\n} else {\n  g();\n}\n");
  EXPECT_EQ(printed({Stmt::guarded(Expr::member(n("d"), ".defined()"), Stmt::assign("e", n("d")))}),
            "if (d.defined()) e = d;\n");
}

TEST(CodeModel, BuilderNestsAndInsertsAtAScopesStart) {
  Builder b;
  b.line("a();");
  b.open("for (;;)");
  const std::size_t level = b.depth(), at = b.current().size();
  b.open_if(n("c"));
  b.line("f();");
  b.orelse();
  b.line("g();");
  b.close();
  b.at(level).insert(b.at(level).begin() + std::ptrdiff_t(at), Stmt::declare("tl::Tensor", "d"));
  b.close();
  b.add(Stmt::blank());
  EXPECT_EQ(printed(b.take()),
            "a();\nfor (;;) {\n  tl::Tensor d;\n  if (c) {\n    f();\n  } else {\n    g();\n  }\n}\n\n");
  Builder open;
  open.open("{");
  EXPECT_THROW(open.take(), std::logic_error);
}

}  // namespace

// Rows for the special functions (include/tlaloc/special.hpp) and top_k. An operand
// the op has no derivative in (polygamma's order, zeta's x, the incomplete gamma
// functions' a) is held fixed by the row; tests/ops/special_test.cpp checks that a
// derivative into it is refused by name.
#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

const tl::Shape s23{2, 3};

Case unary(std::string name, Tensor (*f)(const Tensor&), Tensor x, std::string torch, bool second = true) {
  Case c{
      "special/" + name, {name}, {std::move(x)}, [f](std::span<const Tensor> a) { return f(a[0]); }, second};
  c.torch = std::move(torch);
  return c;
}

// f(c, x) with its first operand fixed at the constant c.
Case fixed_first(std::string name, Tensor (*f)(const Tensor&, const Tensor&), double c, Tensor x,
                 std::string torch) {
  Case row{"special/" + name, {name}, {std::move(x)}, [f, c](std::span<const Tensor> a) {
             return f(tl::full_like(a[0], c), a[0]);
           }};
  row.torch = std::move(torch);
  return row;
}

const bool added = add({
    unary("lgamma", tl::lgamma, uniform(s23, 0.2, 4, 2001), "torch.lgamma(a)"),
    // Between the poles -1 and -2, where Gamma is positive, and -2 and -3.
    unary("lgamma_negative", tl::lgamma, uniform(s23, -2.9, -1.1, 2002), "torch.lgamma(a)"),
    unary("digamma", tl::digamma, uniform(s23, 0.3, 4, 2003), "torch.digamma(a)"),
    unary("erfc", tl::erfc, uniform(s23, -2, 2, 2004), "torch.erfc(a)"),
    unary("erf_inv", tl::erf_inv, uniform(s23, -0.9, 0.9, 2005), "torch.erfinv(a)"),
    // exp(-|x|) has a kink at 0; |x| up to 30 reaches the expansion used beyond 20.
    unary("bessel_i0e", tl::bessel_i0e, away_from_zero(s23, 2006), "torch.special.i0e(a)"),
    unary("bessel_i0e_large", tl::bessel_i0e, away_from_zero(s23, 2007) * 15.0, "torch.special.i0e(a)"),
    unary("bessel_i1e", tl::bessel_i1e, away_from_zero(s23, 2008), "torch.special.i1e(a)"),
    fixed_first("polygamma", tl::polygamma, 2, uniform(s23, 0.5, 3, 2009), "torch.polygamma(2, a)"),
    fixed_first("zeta", tl::zeta, 3, uniform(s23, 0.5, 3, 2010),
                "torch.special.zeta(torch.full_like(a, 3.0), a)"),
    // x on both sides of a + 1, where the series gives way to the continued fraction.
    fixed_first("igamma", tl::igamma, 2.5, uniform(s23, 0.3, 6, 2011),
                "torch.igamma(torch.full_like(a, 2.5), a)"),
    fixed_first("igammac", tl::igammac, 2.5, uniform(s23, 0.3, 6, 2012),
                "torch.igammac(torch.full_like(a, 2.5), a)"),
    // torch 1.13 has no betainc: finite differences only.
    {"special/betainc",
     {"betainc"},
     {uniform(s23, 0.05, 0.95, 2014)},
     [](std::span<const Tensor> a) {
       return tl::betainc(tl::full_like(a[0], 2.5), tl::full_like(a[0], 1.5), a[0]);
     }},
    with_torch({"special/top_k",
                {"top_k"},
                {uniform({2, 5}, -2, 2, 2013)},
                [](std::span<const Tensor> a) { return tl::top_k(a[0], 2)[0]; }},
               "torch.topk(a, 2).values"),
});

}  // namespace
}  // namespace gradcheck

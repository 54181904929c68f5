// matmul in every NumPy shape case (1-D operands, batches that broadcast, empty
// dimensions), dot_general as einsum, outer.
#include <tuple>

#include "oracle_table.hpp"

namespace oracle {
namespace {

// Integers in [-5, 5).
Tensor values(DType t, const Shape& s) { return sample(t, s, 5); }

void matmul_case(Table& t, DType ta, DType tb, const Shape& sa, const Shape& sb, const std::string& expr) {
  const std::int64_t k = sa.back();
  t.add1(
      "matmul/" + name_of(ta) + shape_str(sa) + "," + name_of(tb) + shape_str(sb), expr,
      {values(ta, sa), values(tb, sb)}, [](const Ins& in) { return tl::matmul(in[0], in[1]); }, k);
}

void matmul_cases(Table& t) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{4}, {4}},
      {{4}, {4, 3}},
      {{3, 4}, {4}},
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 2}},
      {{4}, {2, 4, 3}},
      {{2, 3, 4}, {4}},
      {{1, 3, 4}, {2, 4, 5}},
      {{2, 2, 3, 4}, {2, 1, 4, 2}},
      {{0, 4}, {4, 3}},
      {{3, 0}, {0, 2}},
      {{2, 0, 3}, {3, 4}},
      {{1, 1}, {1, 1}},
  };
  for (const auto& [sa, sb] : shapes)
    for (DType d : {DType::f32, DType::f64, DType::i32}) matmul_case(t, d, d, sa, sb, "torch.matmul(a, b)");
  for (const auto& [sa, sb] :
       std::vector<std::pair<Shape, Shape>>{{{3, 4}, {4, 5}}, {{2, 3, 4}, {4}}, {{4}, {4}}})
    for (DType d : {DType::bf16, DType::i8, DType::u8, DType::i64})
      matmul_case(t, d, d, sa, sb, "torch.matmul(a, b)");
  // torch.matmul refuses mixed dtypes; tlaloc promotes first (DTYPES.md), so the
  // oracle converts to the promoted dtype.
  matmul_case(t, DType::f32, DType::f64, {3, 4}, {4, 2}, "torch.matmul(a.double(), b)");
  matmul_case(t, DType::i32, DType::f32, {2, 3, 4}, {4, 2}, "torch.matmul(a.float(), b)");
  matmul_case(t, DType::bf16, DType::f32, {3, 4}, {4}, "torch.matmul(a.float(), b)");
  // A larger product, where BLAS blocks the contraction.
  matmul_case(t, DType::f32, DType::f32, {33, 130}, {130, 17}, "torch.matmul(a, b)");
}

// The einsum equation of a dot_general: batch dims, then lhs free, then rhs free.
std::string einsum_of(std::size_t ra, std::size_t rb, const tl::DotDims& d) {
  auto norm = [](std::int64_t x, std::size_t r) { return std::size_t(x < 0 ? x + std::int64_t(r) : x); };
  std::string la, lb(rb, ' '), out;
  char next = 'a';
  for (std::size_t i = 0; i < ra; ++i) la += next++;
  for (std::size_t i = 0; i < d.rhs_batch.size(); ++i)
    lb[norm(d.rhs_batch[i], rb)] = la[norm(d.lhs_batch[i], ra)];
  for (std::size_t i = 0; i < d.rhs_contract.size(); ++i)
    lb[norm(d.rhs_contract[i], rb)] = la[norm(d.lhs_contract[i], ra)];
  for (auto& c : lb)
    if (c == ' ') c = next++;
  for (auto b : d.lhs_batch) out += la[norm(b, ra)];
  for (std::size_t i = 0; i < ra; ++i)
    if (out.find(la[i]) == std::string::npos && lb.find(la[i]) == std::string::npos) out += la[i];
  for (std::size_t i = 0; i < rb; ++i)
    if (la.find(lb[i]) == std::string::npos) out += lb[i];
  return la + "," + lb + "->" + out;
}

void dot_general_cases(Table& t) {
  struct DG {
    Shape sa, sb;
    tl::DotDims dims;
  };
  const std::vector<DG> cases = {
      {{2, 3, 4}, {2, 4, 5}, {{0}, {0}, {2}, {1}}},
      {{3, 2, 4}, {4, 5, 2}, {{1}, {2}, {2}, {0}}},
      {{3, 4, 5}, {5, 4, 2}, {{}, {}, {1, 2}, {1, 0}}},
      {{2, 3}, {4}, {{}, {}, {}, {}}},
      {{2, 3, 4, 5}, {5, 2, 4, 6}, {{0, 2}, {1, 2}, {3}, {0}}},
      {{2, 3, 4}, {2, 4, 5}, {{-3}, {0}, {-1}, {-2}}},
      {{2, 0, 4}, {2, 4, 3}, {{0}, {0}, {2}, {1}}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    std::int64_t k = 1;
    for (auto d : c.dims.lhs_contract) k *= c.sa[std::size_t(d < 0 ? d + std::int64_t(c.sa.size()) : d)];
    const std::string expr = "torch.einsum('" + einsum_of(c.sa.size(), c.sb.size(), c.dims) + "', a, b)";
    for (DType d : {DType::f32, DType::f64, DType::i32, DType::bf16}) {
      if (i > 0 && d == DType::bf16) continue;
      t.add1(
          "dot_general/" + std::to_string(i) + "/" + name_of(d) + shape_str(c.sa) + "," + shape_str(c.sb),
          expr, {values(d, c.sa), values(d, c.sb)},
          [dims = c.dims](const Ins& in) { return tl::dot_general(in[0], in[1], dims); }, k);
    }
  }
}

void outer_cases(Table& t) {
  using D = DType;
  const std::vector<std::tuple<D, Shape, D, Shape>> cases = {
      {D::f32, {3}, D::f32, {4}},    {D::f64, {3}, D::f64, {4}}, {D::i32, {3}, D::i32, {4}},
      {D::f32, {2, 2}, D::f32, {3}}, {D::i32, {3}, D::f32, {2}}, {D::boolean, {3}, D::boolean, {2}},
      {D::bf16, {3}, D::bf16, {4}},  {D::f32, {0}, D::f32, {3}},
  };
  for (const auto& [ta, sa, tb, sb] : cases)
    t.add1("outer/" + name_of(ta) + shape_str(sa) + "," + name_of(tb) + shape_str(sb),
           "torch.outer(a.flatten(), b.flatten())", {values(ta, sa), values(tb, sb)},
           [](const Ins& in) { return tl::outer(in[0], in[1]); });
}

}  // namespace

void add_linalg_cases(Table& t) {
  t.family("linalg");
  matmul_cases(t);
  dot_general_cases(t);
  outer_cases(t);
}

}  // namespace oracle

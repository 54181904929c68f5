// Rows for dot_general's VJP in each operand layout: its rule takes the product in
// whichever operand order gives the cotangent its operand's layout directly and
// transposes otherwise (src/ops/linalg.cpp dot_transpose), so both paths and the
// batch and multi-axis contractions are checked here.
#include "ad/gradcheck.hpp"

namespace gradcheck {
namespace {

Case dot(std::string name, tl::Shape a, tl::Shape b, tl::DotDims dims, std::string torch, std::uint64_t seed) {
  return with_torch({"dot_general/" + name, {"dot_general"},
                     {uniform(a, -1, 1, seed), uniform(b, -1, 1, seed + 1)},
                     [dims](std::span<const Tensor> x) { return tl::dot_general(x[0], x[1], dims); }},
                    std::move(torch));
}

const bool added = add({
    dot("matmul", {3, 4}, {4, 5}, {{}, {}, {1}, {0}}, "a @ b", 200),
    dot("both_transposed", {4, 3}, {5, 4}, {{}, {}, {0}, {1}}, "torch.einsum('ka,nk->an', a, b)", 202),
    dot("matvec", {3, 4}, {4}, {{}, {}, {1}, {0}}, "a @ b", 204),
    dot("batched", {2, 3, 4}, {2, 4, 5}, {{0}, {0}, {2}, {1}}, "torch.bmm(a, b)", 206),
    dot("batch_inside", {3, 2, 4}, {4, 5, 2}, {{1}, {2}, {2}, {0}}, "torch.einsum('ibk,knb->bin', a, b)", 208),
    dot("two_contractions", {2, 3, 4}, {4, 3, 5}, {{}, {}, {1, 2}, {1, 0}}, "torch.einsum('ijk,kjn->in', a, b)", 210),
    // The operand's free axis sits between its contracted ones: a transpose either way.
    dot("free_between", {3, 2, 4}, {4, 3}, {{}, {}, {0, 2}, {1, 0}}, "torch.einsum('ijk,ki->j', a, b)", 212),
});

}  // namespace
}  // namespace gradcheck

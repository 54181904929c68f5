// custom_rule: a function with a derivative rule of its own (tl::custom_vjp,
// tl::custom_jvp). Region 0 is the primal computation, which is what runs and what
// lowering inlines; the AD engine looks the rule up by its "rule" attribute
// (src/ad/custom.cpp).
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc::detail {
namespace {

[[maybe_unused]] const OpDef& custom_rule_op =
    def_op("custom_rule")
        .cpp(cpp_inline_region)  // what runs is the primal
        .region_kernel(1, [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>,
                             const RegionCalls& regions) { return regions.call(0, in); })
        .lower_with_regions([](std::span<const Tensor> in, const Attrs&, const RegionInliner& inline_region) {
          return inline_region(0, in);
        });

}  // namespace
}  // namespace tlaloc::detail

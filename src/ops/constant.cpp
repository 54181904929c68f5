// Constants and calls: the two ops every program has.
#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::def_op;
using detail::OpDef;
using detail::StableHloAttr;
using detail::TensorType;

// A host tensor baked into the program (`value`).
const OpDef& constant_op =
    def_op("constant")
        .no_derivative()  // no operands
        .keeps_narrow_types()
        .inputs(0)
        .shape_rule([](std::span<const TensorType>, const Attrs& a) {
          const Tensor& v = a.get<Tensor>("value");
          return std::vector<TensorType>{{v.dtype(), v.shape()}};
        })
        .kernel([](std::span<const Tensor>, const Attrs& a, std::span<const TensorType>) {
          return std::vector<Tensor>{a.get<Tensor>("value")};
        })
        .cpp([](detail::CppOp& op) { return detail::cpp_value(op.attrs().get<Tensor>("value")); })
        .stablehlo({"stablehlo.constant", {{"value", StableHloAttr::Kind::elements}}, "constant"});

// A call of another function of the module (`callee`); the interpreter runs it.
// Printed, a call of the callee's printed function (cppgen::print of the module).
const OpDef& call_op =
    def_op("call")
        .calls(OpDef::Calls::one, "callee")
        .takes_tokens()
        .stablehlo({"func.call", {{"callee", StableHloAttr::Kind::symbol}}, "call"})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call(detail::cpp_function_name(op.attrs().get<std::string>("callee")), op);
        });

}  // namespace
}  // namespace tlaloc

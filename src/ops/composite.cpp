// StableHLO's composite: a named op whose meaning is its decomposition, a function
// of the module. Like `call` it has no kernel; the interpreter runs the function
// and the verifier checks the function's signature against the op.
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

const OpDef& composite_op =
    def_op("composite")
        .calls(OpDef::Calls::one, "decomposition")
        .stablehlo({"stablehlo.composite",
                    {StableHloAttr("composite_attributes", Kind::dictionary).optional(),
                     StableHloAttr("decomposition", Kind::symbol), StableHloAttr("name", Kind::string),
                     StableHloAttr("version", Kind::i32).optional()},
                    "composite"})
        // Printed, a call of the decomposition's printed function, as `call` is.
        .cpp([](CppOp& op) {
          return cpp_call(cpp_function_name(op.attrs().get<std::string>("decomposition")), op);
        });

}  // namespace
}  // namespace tlaloc::detail

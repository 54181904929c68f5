// Every op of the registry is accounted for by the AD engine: it has JVP and VJP
// rules and a row of the gradient-check table, or its results carry no derivative
// (`OpDef::no_derivative`, said where it is defined: integer or bool results, no
// operands), or the engine handles it (control flow), or it is refused by name for a
// reason written here (docs/HOW_IT_WORKS.md, "Ops without rules", repeats the list).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ad/gradcheck.hpp"
#include "ir/op.hpp"

namespace {

// Handled by the engine itself (src/ad/control.cpp, src/ad/custom.cpp,
// src/ad/shard_map.cpp; shard_map checked by tests/ad/shard_map_test.cpp).
const std::set<std::string> kEngine = {"if", "case", "while", "scan", "custom_rule", "shard_map"};

// Collectives no tl:: function records (only parsed programs have them), whose rules
// tests/interp/collective_grad_test.cpp checks across processes against finite
// differences instead of the table. The others have rows (tests/ad/cases_collective.cpp).
const std::set<std::string> kAcrossProcesses = {"collective_broadcast", "collective_reduce"};

// Refused by name when a derivative flows through them (by the engine, or by rules
// that refuse), and why.
const std::map<std::string, std::string> kRefused = {
    {"batch_norm_grad", "itself a derivative; differentiate batch_norm_training instead"},
    {"bitcast_convert", "reinterprets bits: no meaningful derivative"},
    {"call", "calls another function of a parsed module; inline it first"},
    {"complex",
     "complex values: grad takes floating arguments only, and complex intermediates have no rules yet"},
    {"composite", "a parsed composite; its decomposition is a call"},
    {"custom_call",
     "an opaque external function: a kernel's derivative is its own rule (tl::kernel(...).vjp), and one "
     "without is refused by name (tests/ops/kernel_test.cpp)"},
    {"dynamic_broadcast_in_dim", "shapes known only at run time: not yet (source transformation)"},
    {"dynamic_conv", "shapes known only at run time: not yet"},
    {"dynamic_gather", "shapes known only at run time: not yet"},
    {"dynamic_pad", "shapes known only at run time: not yet"},
    {"dynamic_reshape", "shapes known only at run time: not yet"},
    {"fft",
     "complex values: grad takes floating arguments only, and complex intermediates have no rules yet"},
    {"fusion", "made by the interpreter after differentiation"},
    {"imag",
     "complex values: grad takes floating arguments only, and complex intermediates have no rules yet"},
    {"infeed", "values from the host queue: constants to a derivative, and no tl:: function records it"},
    {"interpreter.probe", "the reference interpreter's test instrument in parsed programs; remove it first"},
    // prod's and cumprod's rules as recorded at build time (src/ops/prod_calls.cpp):
    // linear in the cotangent, refused in x; the tests of tlaloc-grad pin them.
    {"cumprod_backward",
     "recorded at build time only; its derivative in x is cumprod_backward_jvp, nothing else"},
    {"cumprod_backward_jvp", "stands for a function of the transforms layer, which runs forward mode"},
    {"cumprod_jvp", "recorded at build time only; its derivative in x is refused"},
    {"nextafter", "a step to the neighbouring value of the type: JAX and torch define no derivative"},
    {"outfeed", "values to the host queue: nothing flows back; no tl:: function records it"},
    {"prod_backward", "recorded at build time only; its derivative in x is prod_backward_jvp, nothing else"},
    {"prod_backward_jvp", "stands for a function of the transforms layer, which runs forward mode"},
    {"prod_jvp", "recorded at build time only; its derivative in x is refused"},
    {"real",
     "complex values: grad takes floating arguments only, and complex intermediates have no rules yet"},
    {"recv", "a message from another process: its dual is a send back; not yet"},
    {"rng", "random numbers: no derivative with respect to the bounds is defined"},
    {"run_parallel", "runs functions as processes of a parsed module; differentiate the functions"},
    {"send", "a message to another process: its dual is a recv back; not yet"},
    {"select_and_scatter", "its rules would need the select region's comparison direction"},
    {"while_stacked",
     "made by reverse mode through while_loop: forward mode over it works, a second reverse pass does not"},
};

TEST(Coverage, EveryOpIsDifferentiatedOrAccountedFor) {
  std::set<std::string> in_table;
  for (const gradcheck::Case& c : gradcheck::table())
    for (const std::string& op : c.ops) in_table.insert(op);
  for (const tlaloc::detail::OpDef* op : tlaloc::detail::all_ops()) {
    const std::string& n = op->name();
    if (n.rfind("test.", 0) == 0) continue;  // declared by tests
    const bool rules = op->jvp_rule() && op->vjp_rule();
    const bool listed = kEngine.count(n) + kRefused.count(n) != 0;
    // A refused op may have rules that refuse with the reason (select_and_scatter).
    if (kRefused.count(n) != 0) continue;
    if (kAcrossProcesses.count(n) != 0) {
      EXPECT_TRUE(rules) << n << " is listed as checked across processes but has no rules";
      continue;
    }
    if (rules || op->has_no_derivative()) {
      EXPECT_FALSE(listed) << n << " has rules (or no derivative) and is also listed as handled elsewhere";
      if (rules) {
        EXPECT_TRUE(in_table.count(n)) << n << " has rules but no row of the gradient-check table";
      }
    } else {
      EXPECT_TRUE(listed) << n << " has no derivative rules and is not accounted for";
      EXPECT_FALSE(op->jvp_rule() || op->vjp_rule()) << n << " has only one of its two rules";
    }
  }
}

}  // namespace

// The cached programs behind calls of the public transforms, for code that shows or
// exports them rather than running them (tl::nn::capture's text, tl::serve's
// export): the same cache entry the transform runs, traced on first use.
#pragma once

#include <vector>

#include "ir/ir.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::detail {

// What run_grad runs for this call. Refused inside a trace.
const ir::Function& cached_grad_program(TransformCache& c, const FlatCall& call, const std::vector<bool>& wrt,
                                        bool with_value);
// What run_jit runs for this call. Refused inside a trace.
const ir::Function& cached_jit_program(TransformCache& c, const FlatCall& call);

}  // namespace tlaloc::detail

// Tlaloc: differentiable programming for C++. Include this one header.
#pragma once

#include "tlaloc/bounded.hpp"
#include "tlaloc/control.hpp"
#include "tlaloc/custom.hpp"
#include "tlaloc/dtype.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/kernel.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/sharding.hpp"
#include "tlaloc/special.hpp"
#include "tlaloc/tensor.hpp"
#include "tlaloc/transforms.hpp"
#include "tlaloc/version.hpp"

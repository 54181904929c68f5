// A core file that includes a header of a layer above core: the include check refuses it.
#include "ops/op.hpp"

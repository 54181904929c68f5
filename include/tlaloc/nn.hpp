// tl::nn: functional layers, losses, optimizers, checkpoints and capture (docs/TRAINING.md).
#pragma once

#include "tlaloc/nn/losses.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/nn/layers.hpp"
#include "tlaloc/nn/layers_attention.hpp"
#include "tlaloc/nn/layers_conv.hpp"
#include "tlaloc/nn/layers_sequence.hpp"
#include "tlaloc/nn/safetensors.hpp"
#include "tlaloc/nn/checkpoint.hpp"
#include "tlaloc/nn/capture.hpp"

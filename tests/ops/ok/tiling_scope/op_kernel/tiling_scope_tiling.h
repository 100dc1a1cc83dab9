// SPDX-License-Identifier: MIT
//
// The kernel's own constants, in a header named like op_host's tiling
// header and guarded by the same macro, as real operators do
// (ctc_loss_v3_grad): a real build never puts the host header in the
// kernel's unit, so this one must not be hidden by its guard.
#ifndef TILING_SCOPE_TILING_H
#define TILING_SCOPE_TILING_H

#include <cstdint>

constexpr uint32_t BLOCK_SIZE = 256;

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the kernel_trap bad operator: the element count.
#ifndef KERNEL_TRAP_TILING_H
#define KERNEL_TRAP_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(KernelTrapTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(KernelTrap, KernelTrapTilingData)
} // namespace optiling

#endif

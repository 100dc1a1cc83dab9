// SPDX-License-Identifier: MIT
//
// Tiling data of the kernel_assert bad operator: the element count.
#ifndef KERNEL_ASSERT_TILING_H
#define KERNEL_ASSERT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(KernelAssertTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(KernelAssert, KernelAssertTilingData)
} // namespace optiling

#endif

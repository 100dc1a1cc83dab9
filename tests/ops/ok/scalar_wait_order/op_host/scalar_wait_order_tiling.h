// SPDX-License-Identifier: MIT
//
// Tiling data of scalar_wait_order: the element count.
#ifndef SCALAR_WAIT_ORDER_TILING_H
#define SCALAR_WAIT_ORDER_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScalarWaitOrderTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScalarWaitOrder, ScalarWaitOrderTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of inplace_axpy: the element count, each core's share (a
// multiple of 8 floats, one 32-byte block) and the scalar.
#ifndef INPLACE_AXPY_TILING_H
#define INPLACE_AXPY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InplaceAxpyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InplaceAxpy, InplaceAxpyTilingData)
} // namespace optiling

#endif

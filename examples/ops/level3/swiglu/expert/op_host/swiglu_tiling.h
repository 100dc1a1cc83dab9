// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimised swiglu.  Rows are balanced over the
// cores (the first bigCores take one row more).  Tiling key 1 streams whole
// rows of x (when a half-row is whole 32-byte blocks) with a UB layout
// whose offsets the host chooses so that no vector instruction hits a UB
// bank conflict; key 2 handles any row length with strided DataCopyPad
// copies of tileRows x chunkCols blocks.
#ifndef SWIGLU_TILING_H
#define SWIGLU_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SwiGluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);    /* rows of x and y */
TILING_DATA_FIELD_DEF(uint32_t, colNum);    /* columns of y: half the last dimension of x */
TILING_DATA_FIELD_DEF(uint32_t, baseRows);  /* rows of a small core */
TILING_DATA_FIELD_DEF(uint32_t, bigCores);  /* cores that take baseRows + 1 */
TILING_DATA_FIELD_DEF(uint32_t, tileRows);  /* rows per tile */
TILING_DATA_FIELD_DEF(uint32_t, chunkCols); /* key 2: columns per tile */
TILING_DATA_FIELD_DEF(uint32_t, chunkNum);  /* key 2: column chunks per row */
TILING_DATA_FIELD_DEF(uint32_t, ySlotBytes);  /* UB layout, in allocation order: y queue slot */
TILING_DATA_FIELD_DEF(uint32_t, pad1Bytes);   /* padding after the y queue */
TILING_DATA_FIELD_DEF(uint32_t, xSlotBytes);  /* x queue slot (key 2: each of the a and b queues) */
TILING_DATA_FIELD_DEF(uint32_t, pad2Bytes);   /* padding after the x queue */
TILING_DATA_FIELD_DEF(uint32_t, f2Offset);    /* byte offsets of the float temporaries in one buffer */
TILING_DATA_FIELD_DEF(uint32_t, f3Offset);
TILING_DATA_FIELD_DEF(uint32_t, floatBytes);  /* size of that buffer */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SwiGlu, SwiGluTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the timing probe: the shape split and one switch per
// optimisation the cycle model must price (see op_kernel/probe.cpp).
#ifndef PROBE_TILING_H
#define PROBE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tile);
TILING_DATA_FIELD_DEF(uint32_t, bufs);
TILING_DATA_FIELD_DEF(uint32_t, l2Bypass);
TILING_DATA_FIELD_DEF(uint32_t, bankPad);
TILING_DATA_FIELD_DEF(uint32_t, pipeAll);
TILING_DATA_FIELD_DEF(uint32_t, copyPad);
TILING_DATA_FIELD_DEF(uint32_t, vBarrier);
TILING_DATA_FIELD_DEF(uint32_t, vOps);
TILING_DATA_FIELD_DEF(uint32_t, mode);
TILING_DATA_FIELD_DEF(uint32_t, tmp);
TILING_DATA_FIELD_DEF(uint32_t, scalar);
TILING_DATA_FIELD_DEF(uint32_t, split);
TILING_DATA_FIELD_DEF(uint32_t, aivOnly);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TimingProbe, TilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of reduce_registers: rows of 320 floats, rows per core.
#ifndef REDUCE_REGISTERS_TILING_H
#define REDUCE_REGISTERS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceRegistersTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceRegisters, ReduceRegistersTilingData)
} // namespace optiling

#endif

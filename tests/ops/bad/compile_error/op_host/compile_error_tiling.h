// SPDX-License-Identifier: MIT
//
// Tiling data of the compile_error bad operator: the element count.
#ifndef COMPILE_ERROR_TILING_H
#define COMPILE_ERROR_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CompileErrorTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CompileError, CompileErrorTilingData)
} // namespace optiling

#endif

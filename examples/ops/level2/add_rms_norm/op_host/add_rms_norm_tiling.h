// SPDX-License-Identifier: MIT
//
// Tiling data of add_rms_norm over [rows, cols] half matrices: rows per core
// (the last core takes the remainder), the padded row, 1/cols and epsilon.
#ifndef ADD_RMS_NORM_TILING_H
#define ADD_RMS_NORM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddRmsNormTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(float, invCols);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddRmsNorm, AddRmsNormTilingData)
} // namespace optiling

#endif

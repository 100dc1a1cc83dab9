// SPDX-License-Identifier: MIT
//
// Tiling data of log_softmax over the last axis of a [rows, cols] half
// matrix: rows per core (the last core takes the remainder) and the padded
// row length.
#ifndef LOG_SOFTMAX_TILING_H
#define LOG_SOFTMAX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LogSoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LogSoftmax, LogSoftmaxTilingData)
} // namespace optiling

#endif

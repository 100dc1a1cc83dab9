// SPDX-License-Identifier: MIT
//
// Tiling data of atomic_colsum: matrix size and rows per core.
#ifndef ATOMIC_COLSUM_TILING_H
#define ATOMIC_COLSUM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AtomicColsumTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AtomicColsum, AtomicColsumTilingData)
} // namespace optiling

#endif

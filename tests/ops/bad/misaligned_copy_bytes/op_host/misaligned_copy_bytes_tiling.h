// SPDX-License-Identifier: MIT
//
// Tiling data of the misaligned_copy_bytes bad operator: the element count.
#ifndef MISALIGNED_COPY_BYTES_TILING_H
#define MISALIGNED_COPY_BYTES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MisalignedCopyBytesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MisalignedCopyBytes, MisalignedCopyBytesTilingData)
} // namespace optiling

#endif

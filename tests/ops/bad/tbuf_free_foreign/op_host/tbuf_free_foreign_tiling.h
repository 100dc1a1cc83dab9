// SPDX-License-Identifier: MIT
//
// Tiling data of the tbuf_free_foreign bad operator: the element count.
#ifndef TBUF_FREE_FOREIGN_TILING_H
#define TBUF_FREE_FOREIGN_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TbufFreeForeignTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TbufFreeForeign, TbufFreeForeignTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the template_entry test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef TEMPLATE_ENTRY_TILING_H
#define TEMPLATE_ENTRY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TemplateEntryTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TemplateEntry, TemplateEntryTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the entry_arity bad operator: the element count.
#ifndef ENTRY_ARITY_TILING_H
#define ENTRY_ARITY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EntryArityTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(EntryArity, EntryArityTilingData)
} // namespace optiling

#endif

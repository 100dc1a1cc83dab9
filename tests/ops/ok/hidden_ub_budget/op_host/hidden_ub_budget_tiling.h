// SPDX-License-Identifier: MIT
//
// Tiling data of HiddenUbBudget: each core's share of the elements and the tile it walks them in.
#ifndef HIDDEN_UB_BUDGET_TILING_H
#define HIDDEN_UB_BUDGET_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HiddenUbBudgetTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, shareLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HiddenUbBudget, HiddenUbBudgetTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of brcb_pair_trans: the row count of a and b and the width
// of the 16-row matrices t, h and q.
#ifndef BRCB_PAIR_TRANS_TILING_H
#define BRCB_PAIR_TRANS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BrcbPairTransTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, width);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BrcbPairTrans, BrcbPairTransTilingData)
} // namespace optiling

#endif

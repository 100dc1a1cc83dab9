// SPDX-License-Identifier: MIT
//
// Tiling data of cscale_conj: the complex element count, each core's share
// (a multiple of 4 complex64, one 32-byte block) and the real scale.
#ifndef CSCALE_CONJ_TILING_H
#define CSCALE_CONJ_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CscaleConjTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CscaleConj, CscaleConjTilingData)
} // namespace optiling

#endif

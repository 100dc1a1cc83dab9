// SPDX-License-Identifier: MIT
//
// Tiling data of optional_bias: the row length, and whether the optional
// bias input is there.
#ifndef OPTIONAL_BIAS_TILING_H
#define OPTIONAL_BIAS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OptionalBiasTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, hasBias);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OptionalBias, OptionalBiasTilingData)
} // namespace optiling

#endif

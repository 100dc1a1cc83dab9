// SPDX-License-Identifier: MIT
//
// Tiling data of foreach_add_scalar: the number of tensors in the list, the
// length of each (one core per tensor), and the scalar.
#ifndef FOREACH_ADD_SCALAR_TILING_H
#define FOREACH_ADD_SCALAR_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ForeachAddScalarTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 16, lengths);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachAddScalar, ForeachAddScalarTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the misaligned_operand bad operator: the element count.
#ifndef MISALIGNED_OPERAND_TILING_H
#define MISALIGNED_OPERAND_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MisalignedOperandTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MisalignedOperand, MisalignedOperandTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the gather_repeat_dependency bad operator: the element count.
#ifndef GATHER_REPEAT_DEPENDENCY_TILING_H
#define GATHER_REPEAT_DEPENDENCY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherRepeatDependencyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherRepeatDependency, GatherRepeatDependencyTilingData)
} // namespace optiling

#endif

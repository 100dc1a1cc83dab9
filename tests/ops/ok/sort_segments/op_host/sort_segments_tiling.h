// SPDX-License-Identifier: MIT
//
// Tiling data of sort_segments: the element count (a multiple of 128),
// cut into segments of 1024 handed to the cores in turn.
#ifndef SORT_SEGMENTS_TILING_H
#define SORT_SEGMENTS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SortSegmentsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, segments);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SortSegments, SortSegmentsTilingData)
} // namespace optiling

#endif

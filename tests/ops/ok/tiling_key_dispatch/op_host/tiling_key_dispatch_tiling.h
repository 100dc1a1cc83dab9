// SPDX-License-Identifier: MIT
//
// Tiling data and compile info of tiling_key_dispatch.
#ifndef TILING_KEY_DISPATCH_TILING_H
#define TILING_KEY_DISPATCH_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingKeyDispatchTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingKeyDispatch, TilingKeyDispatchTilingData)

// Filled once by TilingParse from the platform, read by every tiling call.
struct TilingKeyDispatchCompileInfo {
	uint32_t coreNum = 0;
	uint64_t ubSize = 0;
};
} // namespace optiling

#endif

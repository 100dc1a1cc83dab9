// SPDX-License-Identifier: MIT
//
// Tiling data of CastCustom (float32 -> float16) as a plain struct shared by
// the host and the kernel (GET_TILING_DATA_WITH_STRUCT style).
#ifndef CAST_CUSTOM_TILING_H
#define CAST_CUSTOM_TILING_H

#include <cstdint>

struct CastCustomTilingData {
	uint32_t blockLength;     /* elements of every core but the last */
	uint32_t lastBlockLength; /* elements of the last core: its share plus the remainder */
	uint32_t tileLength;      /* elements per UB tile */
	uint32_t bufferNum;       /* buffers per TQue queue */
};

#endif

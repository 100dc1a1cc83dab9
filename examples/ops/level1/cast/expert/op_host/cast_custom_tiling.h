// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized CastCustom as a plain struct: work is
// counted in units of 256 elements (512 bytes of float16 output, 1 KB of
// float32 input); the first bigCoreNum cores take one unit more.
#ifndef CAST_CUSTOM_TILING_H
#define CAST_CUSTOM_TILING_H

#include <cstdint>

struct CastCustomTilingData {
	uint32_t totalLength;
	uint32_t unitsPerCore;
	uint32_t bigCoreNum;
	uint32_t tileLength; /* elements per tile, a whole number of units */
};

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of MulCustom (z = x * y) as a plain struct shared by the host
// and the kernel (the GET_TILING_DATA_WITH_STRUCT style).
#ifndef MUL_CUSTOM_TILING_H
#define MUL_CUSTOM_TILING_H

#include <cstdint>

struct MulCustomTilingData {
	uint32_t totalLength; /* elements in all */
	uint32_t blockLength; /* elements per core; the last core takes what is left */
	uint32_t tileLength;  /* elements per UB tile */
	uint32_t bufferNum;   /* buffers per TQue, the host's BUFFER_NUM */
};

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of LeakyReluCustom as a plain struct shared by the host and
// the kernel (GET_TILING_DATA_WITH_STRUCT style).
#ifndef LEAKY_RELU_CUSTOM_TILING_H
#define LEAKY_RELU_CUSTOM_TILING_H

#include <cstdint>

struct LeakyReluCustomTilingData {
	uint32_t totalLength;   /* elements in all */
	uint32_t alignedLength; /* the leading whole 32-byte blocks, done by the vector path */
	uint32_t blockLength;   /* elements of the aligned part per core */
	uint32_t tileLength;    /* elements per UB tile */
	uint32_t bufferNum;     /* buffers per TQue, the host's BUFFER_NUM */
	float negativeSlope;
};

#endif

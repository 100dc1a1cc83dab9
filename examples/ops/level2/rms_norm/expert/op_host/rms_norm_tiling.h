// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-tuned rms_norm as a plain struct shared by host
// and kernel: rows balanced over the cores (the first bigCoreNum cores take
// one row more), tiles of whole rows sized from the UB, 1/cols and epsilon.
#ifndef RMS_NORM_TILING_H
#define RMS_NORM_TILING_H

#include <cstdint>

struct RmsNormTilingData {
	uint32_t cols;
	uint32_t colsAligned;
	uint32_t smallCoreRows;
	uint32_t bigCoreNum;
	uint32_t tileRows;
	uint32_t workStride;
	float invCols;
	float epsilon;
};

#endif

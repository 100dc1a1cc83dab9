// SPDX-License-Identifier: MIT
//
// Tiling data of rms_norm as a plain struct shared by host and kernel (the
// GET_TILING_DATA_WITH_STRUCT style): the padded row, rows per core (the
// last core takes the remainder), 1/cols and epsilon.
#ifndef RMS_NORM_TILING_H
#define RMS_NORM_TILING_H

#include <cstdint>

struct RmsNormTilingData {
	uint32_t cols;
	uint32_t colsAligned;
	uint32_t rowsPerCore;
	uint32_t tailCoreRows;
	float invCols;
	float epsilon;
};

#endif

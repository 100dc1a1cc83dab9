// SPDX-License-Identifier: MIT
//
// Tiling data of reduce_max as a plain struct shared by host and kernel (the
// GET_TILING_DATA_WITH_STRUCT style): the padded row, rows per core (the
// last core takes the remainder) and rows per tile.
#ifndef REDUCE_MAX_TILING_H
#define REDUCE_MAX_TILING_H

#include <cstdint>

struct ReduceMaxTilingData {
	uint32_t cols;
	uint32_t colsAligned;
	uint32_t rowsPerCore;
	uint32_t tailCoreRows;
	uint32_t tileRows;
};

#endif

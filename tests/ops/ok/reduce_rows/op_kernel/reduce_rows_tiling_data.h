// SPDX-License-Identifier: MIT
//
// Tiling data of reduce_rows as a plain struct shared by host and kernel
// (the GET_TILING_DATA_WITH_STRUCT style of the newer operator repositories).
#ifndef REDUCE_ROWS_TILING_DATA_H
#define REDUCE_ROWS_TILING_DATA_H

#include <cstdint>

struct ReduceRowsTilingData {
	uint32_t rows;
	uint32_t cols;
	uint32_t rowsPerCore;
	uint32_t colsAligned; /* cols rounded up to whole 32-byte blocks */
};

#endif

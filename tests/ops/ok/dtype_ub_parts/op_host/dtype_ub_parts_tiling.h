// SPDX-License-Identifier: MIT
//
// Tiling data of DtypeUbParts as a plain struct shared by the host and the
// kernel (GET_TILING_DATA_WITH_STRUCT style).
#ifndef DTYPE_UB_PARTS_TILING_H
#define DTYPE_UB_PARTS_TILING_H

#include <cstdint>

struct DtypeUbPartsTilingData {
	uint32_t totalLength; /* elements in all, a whole number of 32-byte blocks */
	uint32_t blockLength; /* elements per core (the last core takes what is left) */
	uint32_t tileLength;  /* elements per UB tile: one UB part */
};

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized MulCustom as a plain struct shared by
// host and kernel.  Work is counted in 512-byte units; every core gets
// unitsPerCore of them and the first bigCoreNum cores one more.
#ifndef MUL_CUSTOM_TILING_H
#define MUL_CUSTOM_TILING_H

#include <cstdint>

struct MulCustomTilingData {
	uint32_t totalLength;  /* elements in all */
	uint32_t unitElems;    /* elements per 512-byte unit */
	uint32_t unitsPerCore; /* units of a small core */
	uint32_t bigCoreNum;   /* cores with one unit more */
	uint32_t tileLength;   /* elements per UB tile, a whole number of units */
};

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of apply_adam as a plain struct shared by host and kernel (the
// GET_TILING_DATA_WITH_STRUCT style): the element split over the cores, the
// tile length, and the optimiser's scalars.
#ifndef APPLY_ADAM_TILING_H
#define APPLY_ADAM_TILING_H

#include <cstdint>

struct ApplyAdamTilingData {
	uint32_t totalLength; /* elements of each tensor */
	uint32_t blockLength; /* elements of every core but the last */
	uint32_t lastLength;  /* elements of the last core */
	uint32_t tileLength;  /* elements per UB tile */
	float lr;
	float beta1;
	float beta2;
	float epsilon;
	int32_t step;
	uint32_t reserved;
};

#endif

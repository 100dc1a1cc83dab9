// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimised apply_adam (plain struct, shared by host
// and kernel): a balanced split of 8-float blocks over all vector cores, a
// tile sized from the UB, and the update's scalars folded on the host.
#ifndef APPLY_ADAM_TILING_H
#define APPLY_ADAM_TILING_H

#include <cstdint>

struct ApplyAdamTilingData {
	uint32_t totalLength; /* elements of each tensor */
	uint32_t baseLength;  /* elements of a small core (whole 128-float units) */
	uint32_t bigCores;    /* cores that take 128 elements more */
	uint32_t tileLength;  /* elements per UB tile */
	float beta1;
	float oneMinusBeta1;
	float beta2;
	float oneMinusBeta2;
	float epsilon;
	float stepSize;           /* lr / (1 - beta1^step) */
	float invBiasCorrection2; /* 1 / (1 - beta2^step) */
	uint32_t reserved;
};

#endif

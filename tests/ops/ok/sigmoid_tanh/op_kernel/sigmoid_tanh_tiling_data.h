// SPDX-License-Identifier: MIT
//
// Tiling data of the sigmoid_tanh test operator as a plain struct shared by host and
// kernel (GET_TILING_DATA_WITH_STRUCT style).
#ifndef SIGMOID_TANH_TILING_DATA_H
#define SIGMOID_TANH_TILING_DATA_H

#include <cstdint>

struct SigmoidTanhTilingData {
	uint32_t totalLength;
	uint32_t blockLength;
	uint32_t tileLength;
};

#endif

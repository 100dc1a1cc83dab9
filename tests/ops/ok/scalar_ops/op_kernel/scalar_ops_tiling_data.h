// SPDX-License-Identifier: MIT
//
// Tiling data of the scalar_ops test operator as a plain struct shared by host and
// kernel (GET_TILING_DATA_WITH_STRUCT style).
#ifndef SCALAR_OPS_TILING_DATA_H
#define SCALAR_OPS_TILING_DATA_H

#include <cstdint>

struct ScalarOpsTilingData {
	uint32_t totalLength;
	uint32_t blockLength;
	uint32_t tileLength;
};

#endif

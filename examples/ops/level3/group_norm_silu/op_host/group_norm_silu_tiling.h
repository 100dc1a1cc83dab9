// SPDX-License-Identifier: MIT
//
// Tiling data of group_norm_silu as a plain struct shared by host and kernel
// (the GET_TILING_DATA_WITH_STRUCT style of the newer operator
// repositories): the shape, the split of the N * G groups over the cores,
// the tile length and epsilon.
#ifndef GROUP_NORM_SILU_TILING_H
#define GROUP_NORM_SILU_TILING_H

#include <cstdint>

struct GroupNormSiluTilingData {
	uint32_t batch;            /* N */
	uint32_t channels;         /* C */
	uint32_t spatial;          /* H * W */
	uint32_t groups;           /* G */
	uint32_t channelsPerGroup; /* C / G */
	uint32_t groupsPerCore;    /* (n, g) groups of every core but the last */
	uint32_t lastCoreGroups;   /* (n, g) groups of the last core */
	uint32_t tileLength;       /* elements per UB tile */
	float epsilon;
	uint32_t reserved;
};

#endif

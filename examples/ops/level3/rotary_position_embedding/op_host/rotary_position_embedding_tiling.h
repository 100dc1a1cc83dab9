// SPDX-License-Identifier: MIT
//
// Tiling data of rotary_position_embedding: x is [tokens, heads, dim]; the
// tokens are spread over the cores (the last core takes what is left) and
// one token, all its heads, is one tile.
#ifndef ROTARY_POSITION_EMBEDDING_TILING_H
#define ROTARY_POSITION_EMBEDDING_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RotaryPositionEmbeddingTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tokenNum);       /* tokens */
TILING_DATA_FIELD_DEF(uint32_t, headNum);        /* heads per token */
TILING_DATA_FIELD_DEF(uint32_t, headDim);        /* elements per head, even */
TILING_DATA_FIELD_DEF(uint32_t, halfDimAligned); /* headDim / 2 rounded up to whole 32-byte blocks */
TILING_DATA_FIELD_DEF(uint32_t, tokensPerCore);  /* tokens of every core but the last */
TILING_DATA_FIELD_DEF(uint32_t, lastCoreTokens); /* tokens of the last core */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RotaryPositionEmbedding, RotaryPositionEmbeddingTilingData)
} // namespace optiling

#endif

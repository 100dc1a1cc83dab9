// SPDX-License-Identifier: MIT
//
// Tiling data of tiling_scope.  Besides the operator's class, namespace
// optiling holds a constant named like the kernel's own (BLOCK_SIZE, with
// another value) and a tiling class in a nested namespace: a real build
// hands the kernel only the tiling classes, so neither may reach it.
// BEGIN_TILING_DATA_DEF(TilingScopeGhost) in this comment names no class.
#ifndef TILING_SCOPE_TILING_H
#define TILING_SCOPE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t BLOCK_SIZE = 4096; /* host-side bytes per core step */

namespace detail {
BEGIN_TILING_DATA_DEF(TilingScopeHostOnly)
TILING_DATA_FIELD_DEF(uint32_t, unused);
END_TILING_DATA_DEF;
} // namespace detail

/* BEGIN_TILING_DATA_DEF(TilingScopeGhost2) */
BEGIN_TILING_DATA_DEF(TilingScopeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingScope, TilingScopeTilingData)
} // namespace optiling

#endif

// SPDX-License-Identifier: MIT
//
// Tiling data of SandboxProbe: elements per core.
#ifndef SANDBOX_PROBE_TILING_H
#define SANDBOX_PROBE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling
{
BEGIN_TILING_DATA_DEF(SandboxProbeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SandboxProbe, SandboxProbeTilingData)
} // namespace optiling

#endif

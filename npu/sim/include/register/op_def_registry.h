// SPDX-License-Identifier: MIT
//
// The OpDef builder, OP_ADD and the tiling/infer registries (IMPL_OP_OPTILING)
// as operator host sources include them.  See ascendsim/host.h.
#ifndef ASCENDSIM_REGISTER_OP_DEF_REGISTRY_H
#define ASCENDSIM_REGISTER_OP_DEF_REGISTRY_H

#include "ascendsim/host.h"
#include "register/tilingdata_base.h"

#endif

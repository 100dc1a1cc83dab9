// SPDX-License-Identifier: MIT
//
// IMPL_OP / IMPL_OP_OPTILING and the gert contexts; see ascendsim/host.h.
#ifndef ASCENDSIM_REGISTER_OP_IMPL_REGISTRY_H
#define ASCENDSIM_REGISTER_OP_IMPL_REGISTRY_H

#include "ascendsim/host.h"

#endif

// SPDX-License-Identifier: MIT
//
// The one copy of the standard containers the host-side API uses, which
// ascendsim/host_prelude.h declares extern in every op_host unit.
#define ASCENDSIM_HOST_INSTANCES
#include "ascendsim/host_prelude.h"

#define ASCENDSIM_INSTANTIATE(...) template class __VA_ARGS__;
ASCENDSIM_HOST_CONTAINERS(ASCENDSIM_INSTANTIATE)

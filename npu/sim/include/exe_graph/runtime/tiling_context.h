// SPDX-License-Identifier: MIT
//
// gert::TilingContext; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_TILING_CONTEXT_H

#include "ascendsim/host.h"

#endif

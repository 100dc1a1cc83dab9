// SPDX-License-Identifier: MIT
//
// gert::TilingParseContext; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_TILING_PARSE_CONTEXT_H

#include "ascendsim/host.h"

#endif

// SPDX-License-Identifier: MIT
//
// gert::InferShapeContext; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_INFER_SHAPE_CONTEXT_H

#include "ascendsim/host.h"

#endif

// SPDX-License-Identifier: MIT
//
// gert::InferDataTypeContext; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_INFER_DATATYPE_CONTEXT_H

#include "ascendsim/host.h"

#endif

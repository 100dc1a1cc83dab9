// SPDX-License-Identifier: MIT
//
// gert::Tensor; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_TENSOR_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_TENSOR_H

#include "ascendsim/host.h"

#endif
